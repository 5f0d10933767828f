import { eq } from 'drizzle-orm';
import type { Metadata } from 'next';
import Link from 'next/link';
import { AcceptInvitationForm } from '@/components/dashboard/accept-invitation-form';
import { requireUser } from '@/lib/auth/session';
import { getDb } from '@/lib/db/client';
import { merchants } from '@/lib/db/schema';
import { findInvitation } from '@/lib/merchants/members';

export const metadata: Metadata = { title: 'Invitation', robots: { index: false } };

/** The link from an invitation e-mail: sign in (or up) with the invited address, then accept. */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const user = await requireUser({ returnTo: `/invitations/${token}` });
  const invitation = await findInvitation(token);
  const [merchant] = invitation
    ? await getDb().select({ name: merchants.name }).from(merchants).where(eq(merchants.id, invitation.merchantId))
    : [];
  return (
    <main className="mx-auto flex max-w-md flex-col gap-4 px-4 py-12">
      {invitation && merchant ? (
        <>
          <h1 className="text-xl font-semibold">Join {merchant.name}</h1>
          <p className="text-sm text-slate-600">
            You are invited as <strong>{invitation.role}</strong> ({invitation.email}). You are signed in as {user.email}.
          </p>
          <AcceptInvitationForm token={token} />
        </>
      ) : (
        <>
          <h1 className="text-xl font-semibold">This invitation is no longer valid</h1>
          <p className="text-sm text-slate-600">It was used, revoked or has expired. Ask the merchant for a new one.</p>
          <Link href="/dashboard" className="text-sm font-semibold text-brand-600 underline">
            Go to the dashboard
          </Link>
        </>
      )}
    </main>
  );
}
