import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { DeliveryLog, EndpointStatusBadge, dateTime } from '@/components/dashboard/webhook-endpoints';
import { DeleteEndpointButton, EditEndpointForm, SendTestEventButton, SigningSecret } from '@/components/dashboard/webhooks';
import { isAppError } from '@/lib/errors';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { roleAllows } from '@/lib/merchants/permissions';
import { getWebhookEndpointForMember, listWebhookDeliveriesForMember } from '@/lib/merchants/webhooks-for-member';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'Webhook endpoint' };

const LIST = '/dashboard/settings/webhooks';

export default async function WebhookEndpointPage({
  params,
  searchParams,
}: {
  params: Promise<{ endpointId: string }>;
  searchParams: Promise<{ event?: string; before?: string }>;
}) {
  const { endpointId } = await params;
  const { event, before } = await searchParams;
  const here = `${LIST}/${endpointId}`;
  const { user, membership } = await requireMember({ returnTo: here });
  const mode = await dashboardMode();
  const actor = { userId: user.id, merchantId: membership.merchant.id, mode, endpointId };
  let endpoint, log;
  try {
    endpoint = await getWebhookEndpointForMember(actor);
    log = await listWebhookDeliveriesForMember({ ...actor, eventId: event || undefined, before: before || undefined });
  } catch (error) {
    // Another merchant's or mode's endpoint (after switching mode, say), or a stale page cursor.
    if (isAppError(error) && (error.code === 'not_found' || error.code === 'invalid_request')) notFound();
    throw error;
  }
  const canManage = roleAllows(membership.role, 'webhooks.manage');
  const logHref = (query: { event?: string; before?: string }) => {
    const search = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
    return search ? `${here}?${search}` : here;
  };
  const last = log.deliveries.at(-1);
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-8 px-4 py-8">
      <div>
        <Link href={LIST} className="text-sm text-brand-700 underline">
          ← Webhooks
        </Link>
        <h1 className="mt-2 break-all font-mono text-lg font-semibold" data-testid="endpoint-url">
          {endpoint.url}
        </h1>
        <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-600">
          <EndpointStatusBadge endpoint={endpoint} />
          <span>{mode} mode</span>
          <span className="font-mono text-xs">{endpoint.id}</span>
          {endpoint.failingSince && <span className="text-amber-800">failing since {dateTime(endpoint.failingSince)}</span>}
        </p>
        {endpoint.disabledReason && <p className="mt-1 text-sm text-slate-600">{endpoint.disabledReason}</p>}
      </div>

      {canManage ? (
        <>
          <section
            aria-labelledby="endpoint-settings"
            className="flex max-w-xl flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200"
          >
            <h2 id="endpoint-settings" className="font-semibold">
              Settings
            </h2>
            <EditEndpointForm endpoint={endpoint} live={mode === 'live'} />
          </section>
          <section aria-labelledby="endpoint-secret" className="flex max-w-xl flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200">
            <h2 id="endpoint-secret" className="font-semibold">
              Signing secret
            </h2>
            <p className="text-sm text-slate-600">
              Verify each delivery&apos;s <code>webhook-signature</code> with it (any Standard Webhooks library). Rotate it with an overlap:
              both secrets sign meanwhile, so you can deploy the new one without missing a delivery.
            </p>
            <SigningSecret endpointId={endpoint.id} previousSecretExpiresAt={endpoint.previousSecretExpiresAt} />
          </section>
          <section aria-label="Endpoint actions" className="flex flex-wrap items-start gap-3">
            <SendTestEventButton endpointId={endpoint.id} disabled={!endpoint.enabled} />
            <DeleteEndpointButton endpointId={endpoint.id} live={mode === 'live'} />
          </section>
        </>
      ) : (
        <p className="text-sm text-slate-600" data-testid="webhooks-read-only">
          Events: {endpoint.eventTypes.includes('*') ? 'all' : endpoint.eventTypes.join(', ')}. Your role ({membership.role}) can read the
          delivery log but not change the endpoint, see its secret or resend events.
        </p>
      )}

      <section aria-labelledby="delivery-log" className="flex flex-col gap-3">
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h2 id="delivery-log" className="font-semibold">
            Delivery log{event ? ` of ${event}` : ''}
          </h2>
          <div className="flex gap-3 text-sm">
            {event && (
              <Link href={logHref({})} className="text-brand-700 underline">
                All events
              </Link>
            )}
            <Link href={logHref({ event })} className="text-brand-700 underline">
              Newest
            </Link>
          </div>
        </div>
        <DeliveryLog endpointId={endpoint.id} deliveries={log.deliveries} canResend={canManage && endpoint.enabled} logHref={logHref} />
        {log.hasMore && last && (
          <Link href={logHref({ event, before: last.id })} className="self-start text-sm text-brand-700 underline">
            Older attempts →
          </Link>
        )}
      </section>
    </main>
  );
}
