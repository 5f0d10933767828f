import type { Metadata } from 'next';
import { OAuthApps, RegisterOAuthAppForm } from '@/components/dashboard/oauth-apps';
import { env } from '@/lib/env';
import { roleAllows } from '@/lib/merchants/permissions';
import { listOAuthApps } from '@/lib/oauth/list-oauth-apps';
import { listOAuthAppUsers } from '@/lib/oauth/list-oauth-app-users';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'OAuth' };

export default async function OAuthPage() {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/settings/oauth' });
  const actor = { userId: user.id, merchantId: membership.merchant.id };
  const apps = await listOAuthApps(actor);
  const users = Object.fromEntries(
    await Promise.all(apps.map(async (app) => [app.clientId, await listOAuthAppUsers({ ...actor, clientId: app.clientId })] as const)),
  );
  const canManage = roleAllows(membership.role, 'oauth_apps.manage');
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-8">
      <div>
        <h1 className="text-xl font-semibold">OAuth</h1>
        <p className="mt-1 max-w-3xl text-sm text-slate-600">
          Let players sign in to your game or app with their Chargeport account, see their balances, and pay your charges without leaving it
          (they confirm each payment with their PIN on Chargeport). Chargeport is a standard OpenID provider: issuer{' '}
          <code className="font-mono text-xs">{env().APP_URL}</code>, discovery at{' '}
          <code className="font-mono text-xs">/.well-known/openid-configuration</code>. Scopes: <code>openid</code>, <code>email</code>,{' '}
          <code>profile</code>, <code>wallet:read</code>, <code>payments</code>.
        </p>
      </div>
      <OAuthApps apps={apps} users={users} canManage={canManage} />
      {canManage ? (
        <RegisterOAuthAppForm />
      ) : (
        <p className="text-sm text-slate-600">Your role ({membership.role}) can see apps but not register, roll or revoke them.</p>
      )}
    </main>
  );
}
