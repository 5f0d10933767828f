import type { Metadata } from 'next';
import Link from 'next/link';
import { AcceptInvitationForm } from '@/components/dashboard/accept-invitation-form';
import { AuthCard } from '@/components/ui/card';
import { getSessionUser } from '@/lib/auth/session';
import { describeInvitation } from '@/lib/merchants/describe-invitation';

export const metadata: Metadata = { title: 'Invitation', robots: { index: false } };

const ROLE_LABEL = { owner: 'an owner', admin: 'an admin', developer: 'a developer', viewer: 'a viewer' } as const;
const linkClass = 'inline-flex min-h-11 items-center justify-center rounded-lg px-4 text-sm font-semibold';

/**
 * The link from an invitation e-mail. Signed out, it says who invited which address to which merchant and
 * offers sign-in or sign-up, both returning here; signed in, it accepts.
 */
export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const [invitation, user] = await Promise.all([describeInvitation(token), getSessionUser()]);
  if (!invitation) {
    return (
      <AuthCard title="This invitation is no longer valid" subtitle="It was used, revoked or has expired. Ask the merchant for a new one.">
        <Link href="/dashboard" className="text-sm font-semibold text-brand-700 underline underline-offset-4">
          Go to the dashboard
        </Link>
      </AuthCard>
    );
  }
  const here = `/invitations/${encodeURIComponent(token)}`;
  const query = `callbackUrl=${encodeURIComponent(here)}&email=${encodeURIComponent(invitation.email)}`;
  return (
    <AuthCard
      title={`Join ${invitation.merchantName}`}
      subtitle={
        <span data-testid="invitation-summary">
          {invitation.invitedBy ? <strong className="font-medium text-slate-900">{invitation.invitedBy}</strong> : 'A member'} invited{' '}
          <strong className="font-medium text-slate-900">{invitation.email}</strong> to join{' '}
          <strong className="font-medium text-slate-900">{invitation.merchantName}</strong> on Chargeport as {ROLE_LABEL[invitation.role]}.
        </span>
      }
    >
      {user ? (
        <div className="flex flex-col gap-4">
          <p className="text-sm text-slate-600">You are signed in as {user.email}.</p>
          <AcceptInvitationForm token={token} />
        </div>
      ) : (
        <div className="flex flex-col gap-3">
          <p className="text-sm text-slate-600">Sign in with {invitation.email} to accept, or create an account with it first.</p>
          <Link href={`/signin?${query}`} className={`${linkClass} bg-brand-600 text-white hover:bg-brand-700`}>
            Sign in to accept
          </Link>
          <Link href={`/signup?${query}`} className={`${linkClass} bg-white text-slate-900 ring-1 ring-slate-300 hover:bg-slate-50`}>
            Create an account
          </Link>
        </div>
      )}
    </AuthCard>
  );
}
