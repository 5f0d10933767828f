import type { Metadata } from 'next';
import { WebhookEndpointsTable } from '@/components/dashboard/webhook-endpoints';
import { CreateEndpointForm } from '@/components/dashboard/webhooks';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { roleAllows } from '@/lib/merchants/permissions';
import { listWebhookEndpointsForMember } from '@/lib/merchants/webhooks-for-member';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage() {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/settings/webhooks' });
  const mode = await dashboardMode();
  const endpoints = await listWebhookEndpointsForMember({ userId: user.id, merchantId: membership.merchant.id, mode });
  const canManage = roleAllows(membership.role, 'webhooks.manage');
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-8">
      <div>
        <h1 className="text-xl font-semibold">Webhooks ({mode})</h1>
        <p className="mt-1 text-sm text-slate-600">
          Chargeport POSTs every charge change of {mode} mode to these endpoints, signed per Standard Webhooks with the endpoint&apos;s
          secret.
          {mode === 'test'
            ? ' Test endpoints may use http:// (and localhost where this deployment allows it).'
            : ' Live endpoints need https:// to a public address.'}
        </p>
      </div>
      <WebhookEndpointsTable endpoints={endpoints} />
      {canManage ? (
        <CreateEndpointForm live={mode === 'live'} />
      ) : (
        <p className="text-sm text-slate-600" data-testid="webhooks-read-only">
          Your role ({membership.role}) can see endpoints and their delivery logs but not change them.
        </p>
      )}
    </main>
  );
}
