import type { Metadata } from 'next';
import Link from 'next/link';
import { BecomeMerchantForm } from '@/components/account/become-merchant-form';
import { ChargesOverview } from '@/components/dashboard/charges-overview';
import { RequestVerificationButton } from '@/components/dashboard/request-verification-button';
import { requireUser } from '@/lib/auth/session';
import { getDashboardOverview } from '@/lib/charges/get-dashboard-overview';
import { findMerchantOfUser } from '@/lib/merchants/find-merchant-of-user';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { VERIFICATION_STATUS_LABELS, verificationStatus } from '@/lib/merchants/verification';

export const metadata: Metadata = { title: 'Dashboard' };

/**
 * The merchant dashboard's entry (Overview): the merchant, its verification, succeeded charges of the
 * last 30 days and the latest charges, of the mode the test/live switch selects. An account that is
 * not a merchant yet creates its merchant here (spec rule 6: "or in a merchant dashboard").
 */
export default async function DashboardPage() {
  const user = await requireUser({ returnTo: '/dashboard' });
  const membership = await findMerchantOfUser(user.id);
  const mode = await dashboardMode();
  const overview = membership ? await getDashboardOverview({ userId: user.id, merchantId: membership.merchant.id, mode }) : undefined;
  return (
    <main className="mx-auto max-w-5xl px-4 py-10">
      <p className="text-sm text-slate-500">
        Signed in as {user.email} ·{' '}
        <Link href="/wallet" className="underline">
          Wallet
        </Link>
      </p>
      {membership ? (
        <section className="mt-4">
          <h1 className="text-2xl font-semibold" data-testid="merchant-name">
            {membership.merchant.name}
          </h1>
          <p className="mt-1 text-sm text-slate-600">
            Your role: {membership.role}. Business verification:{' '}
            <strong data-testid="verification-status">{VERIFICATION_STATUS_LABELS[verificationStatus(membership.merchant)]}</strong>
          </p>
          {!membership.merchant.verifiedAt && (
            <div className="mt-6 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
              <h2 className="font-semibold">Production key</h2>
              <p className="mt-1 text-sm text-slate-600">
                Your test key works now. A production key, and direct transfers to external wallets, need business verification.
              </p>
              <div className="mt-4">
                <RequestVerificationButton requested={membership.merchant.verificationRequestedAt !== null} />
              </div>
            </div>
          )}
          {overview && <ChargesOverview overview={overview} mode={mode} />}
        </section>
      ) : (
        <section className="mt-4 max-w-md">
          <h1 className="text-2xl font-semibold">Create your merchant account</h1>
          <p className="mt-1 text-sm text-slate-600">Accept crypto payments in your game or app.</p>
          <div className="mt-6">
            <BecomeMerchantForm />
          </div>
        </section>
      )}
    </main>
  );
}
