import type { Metadata } from 'next';
import Link from 'next/link';
import { signOutEverywhereAction } from '@/app/(auth)/actions';
import { BecomeMerchantForm } from '@/components/account/become-merchant-form';
import { ConnectedApps } from '@/components/account/connected-apps';
import { EmailChangeForm } from '@/components/account/email-change-form';
import { Button } from '@/components/ui/button';
import { listIdentities } from '@/lib/accounts/list-identities';
import { requireUser } from '@/lib/auth/session';
import { findMerchantOfUser } from '@/lib/merchants/find-merchant-of-user';
import { listConnectedApps } from '@/lib/oauth/grants';

export const metadata: Metadata = { title: 'Profile' };

const METHOD_LABELS = { email: 'E-mail code', google: 'Google', apple: 'Apple', ethereum: 'Ethereum' } as const;

export default async function ProfilePage() {
  const user = await requireUser({ returnTo: '/account/profile' });
  const [identities, membership, connectedApps] = await Promise.all([
    listIdentities(user.id),
    findMerchantOfUser(user.id),
    listConnectedApps(user.id),
  ]);
  return (
    <div className="flex max-w-xl flex-col gap-8">
      <section>
        <h1 className="text-2xl font-semibold">Profile</h1>
        <dl className="mt-4 grid grid-cols-[8rem_1fr] gap-y-2 text-sm">
          <dt className="text-slate-500">E-mail</dt>
          <dd>{user.email}</dd>
          <dt className="text-slate-500">Sign-in methods</dt>
          <dd>{identities.map((identity) => METHOD_LABELS[identity.provider]).join(', ')}</dd>
          <dt className="text-slate-500">Phone</dt>
          <dd>{user.phoneE164 ?? 'not linked'}</dd>
        </dl>
      </section>
      {user.emailVerifiedAt && (
        <section className="flex flex-col gap-3 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
          <h2 className="text-lg font-semibold">Change e-mail</h2>
          <EmailChangeForm />
        </section>
      )}
      <section className="rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
        <h2 className="text-lg font-semibold">Merchant account</h2>
        {membership ? (
          <p className="mt-2 text-sm" data-testid="merchant-membership">
            You are {membership.role} of <strong>{membership.merchant.name}</strong>
            {membership.merchant.verifiedAt ? ' (verified)' : ' (not verified yet)'}. Manage it in the dashboard.
          </p>
        ) : (
          <>
            <p className="mt-1 text-sm text-slate-600">
              Accept crypto payments in your game or app. The same sign-in works on the wallet and the merchant dashboard.
            </p>
            <div className="mt-4">
              <BecomeMerchantForm />
            </div>
          </>
        )}
      </section>
      <ConnectedApps apps={connectedApps} />
      <section>
        <h2 className="text-lg font-semibold">Sessions</h2>
        <p className="mt-1 text-sm text-slate-600">
          Signed in on a device you no longer have? Sign out everywhere: every app connected to your account loses its access too.
        </p>
        <form action={signOutEverywhereAction} className="mt-3">
          <Button type="submit" variant="secondary">
            Sign out everywhere
          </Button>
        </form>
        <p className="mt-6 text-sm">
          <Link href="/account/pin" className="text-brand-600 underline underline-offset-4">
            PIN settings
          </Link>
        </p>
      </section>
    </div>
  );
}
