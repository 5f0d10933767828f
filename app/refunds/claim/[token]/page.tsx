import type { Metadata } from 'next';
import { headers } from 'next/headers';
import Link from 'next/link';
import { ClaimRefundForm } from '@/components/refunds/claim-refund-form';
import { AuthCard } from '@/components/ui/card';
import { getSessionUser } from '@/lib/auth/session';
import { isAppError } from '@/lib/errors';
import { clientIpFrom } from '@/lib/http/client-ip';
import { findRefundClaim, type RefundClaimView } from '@/lib/refunds/claim-refund';
import { consumeRefundClaimLimit } from '@/lib/refunds/consume-refund-claim-limit';

export const metadata: Metadata = { title: 'Your refund', robots: { index: false }, referrer: 'no-referrer' };

/**
 * A refund claim link (lib/refunds/claim-refund.ts), public: the token in the path is the capability.
 * Shows the amount and lets the payer choose an address, or their Chargeport balance when signed in.
 */
export default async function RefundClaimPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  let claim: RefundClaimView | undefined;
  let problem: string | undefined;
  try {
    await consumeRefundClaimLimit(clientIpFrom(await headers()));
    claim = await findRefundClaim(token);
  } catch (error) {
    if (!isAppError(error)) throw error;
    problem = error.message;
  }
  if (!claim) {
    return (
      <AuthCard title="This refund link is not valid" subtitle={problem ?? 'Ask the merchant for a new one.'}>
        <Link href="/" className="text-sm font-semibold text-brand-700 underline underline-offset-4">
          Chargeport
        </Link>
      </AuthCard>
    );
  }
  const user = await getSessionUser();
  const amount = `${claim.amount} ${claim.symbol}`;
  const here = `/refunds/claim/${encodeURIComponent(token)}`;
  return (
    <AuthCard
      title={`${claim.merchantName} refunds you ${amount}`}
      subtitle={<span data-testid="refund-claim-summary">{`On ${claim.chainName}. Choose where it goes.`}</span>}
    >
      {claim.status === 'awaiting_claim' ? (
        <div className="flex flex-col gap-3">
          {claim.expiresAt && (
            <p className="text-sm text-slate-600">{`Claim it before ${new Date(claim.expiresAt).toUTCString()}; after that it returns to the merchant.`}</p>
          )}
          <ClaimRefundForm token={token} chainName={claim.chainName} signedInAs={user?.email ?? undefined} />
          {!user && (
            <Link href={`/signin?callbackUrl=${encodeURIComponent(here)}`} className="text-sm text-brand-700 underline underline-offset-4">
              Sign in to receive it in your Chargeport balance instead
            </Link>
          )}
        </div>
      ) : claim.status === 'expired' ? (
        <p className="text-sm text-slate-700">This refund link expired: the amount went back to the merchant. Ask them for a new refund.</p>
      ) : (
        <p className="text-sm text-slate-700" data-testid="refund-claim-done">
          {`Claimed: ${amount} ${claim.status === 'succeeded' ? 'were sent' : 'are on their way'} to ${claim.destination}.`}
        </p>
      )}
    </AuthCard>
  );
}
