import Link from 'next/link';
import { ResendButton } from '@/components/dashboard/webhooks';
import type { DeliveryLogEntry } from '@/lib/webhooks/list-deliveries';
import type { WebhookEndpointResource } from '@/lib/webhooks/schemas';
import { DataTable } from '@/components/ui/data-table';

const BODY_PREVIEW_CHARS = 60;

export const dateTime = (value: Date | string | null) =>
  value ? new Date(value).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium', timeZone: 'UTC' }) + ' UTC' : '—';

/** active / failing / disabled; an endpoint the merchant switched off shows as disabled too. */
function endpointBadge(endpoint: Pick<WebhookEndpointResource, 'enabled' | 'status'>): 'active' | 'failing' | 'disabled' {
  return endpoint.enabled ? endpoint.status : 'disabled';
}

const BADGE_STYLES = {
  active: 'bg-emerald-50 text-emerald-800 ring-emerald-200',
  failing: 'bg-amber-50 text-amber-900 ring-amber-200',
  disabled: 'bg-slate-100 text-slate-600 ring-slate-200',
} as const;

export function EndpointStatusBadge({ endpoint }: { endpoint: Pick<WebhookEndpointResource, 'enabled' | 'status'> }) {
  const badge = endpointBadge(endpoint);
  return (
    <span className={`rounded px-1.5 py-0.5 text-xs font-medium ring-1 ${BADGE_STYLES[badge]}`} data-testid="endpoint-status">
      {badge}
    </span>
  );
}

const eventsSummary = (types: readonly string[]) => (types.includes('*') ? 'All events' : types.join(', '));

export function WebhookEndpointsTable({ endpoints }: { endpoints: WebhookEndpointResource[] }) {
  if (endpoints.length === 0) return <p className="text-sm text-slate-600">No endpoints in this mode yet.</p>;
  return (
    <DataTable
      columns={[{ label: 'Endpoint' }, { label: 'Events' }, { label: 'Status' }, { label: 'Created' }]}
      minWidthClass="min-w-[40rem]"
      testId="webhook-endpoints"
      label="Webhook endpoints"
    >
      {endpoints.map((endpoint) => (
        <tr key={endpoint.id} data-testid="webhook-endpoint-row" data-endpoint-id={endpoint.id}>
          <td className="max-w-xs py-3 align-top">
            <Link href={`/dashboard/settings/webhooks/${endpoint.id}`} className="break-all font-mono text-xs text-brand-700 underline">
              {endpoint.url}
            </Link>
            {endpoint.description && <p className="text-xs text-slate-500">{endpoint.description}</p>}
          </td>
          <td className="py-3 align-top font-mono text-xs text-slate-600">{eventsSummary(endpoint.eventTypes)}</td>
          <td className="py-3 align-top">
            <EndpointStatusBadge endpoint={endpoint} />
          </td>
          <td className="py-3 align-top text-slate-600">{dateTime(endpoint.createdAt)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

const STATUS_STYLES = {
  // Waits for an earlier event of its charge to this endpoint.
  held: 'text-amber-700',
  pending: 'text-slate-600',
  sending: 'text-sky-700',
  succeeded: 'text-emerald-700',
  failed: 'text-rose-700',
  canceled: 'text-slate-500',
} as const;

/**
 * The delivery log: one row per attempt, newest first; the full request and answer fold out. Its
 * wrapper scrolls sideways on a phone; `relative` makes it the containing block of the `sr-only`
 * header (absolutely positioned), which would otherwise sit outside the scroller and widen the page.
 */
export function DeliveryLog({
  endpointId,
  deliveries,
  canResend,
  logHref,
}: {
  endpointId: string;
  deliveries: DeliveryLogEntry[];
  canResend: boolean;
  /** The log's URL narrowed to one event. */
  logHref: (query: { event?: string }) => string;
}) {
  if (deliveries.length === 0) return <p className="text-sm text-slate-600">Nothing sent to this endpoint yet.</p>;
  return (
    <DataTable
      columns={[
        { label: 'Sent', className: 'py-2 pr-2 font-medium' },
        { label: 'Event', className: 'py-2 pr-2 font-medium' },
        { label: 'Attempt', className: 'py-2 pr-2 font-medium' },
        { label: 'Status', className: 'py-2 pr-2 font-medium' },
        { label: 'Response', className: 'py-2 pr-2 font-medium' },
        { label: 'Duration', className: 'py-2 pr-2 font-medium' },
        { label: 'Next retry', className: 'py-2 pr-2 font-medium' },
        { label: 'Actions', srOnly: true },
      ]}
      label="Deliveries to this endpoint"
      minWidthClass="min-w-[60rem]"
      testId="webhook-deliveries"
    >
      {deliveries.map((delivery) => (
        <tr
          key={delivery.id}
          data-testid="delivery-row"
          data-event-type={delivery.eventType}
          data-status={delivery.status}
          data-response-status={delivery.responseStatus ?? ''}
        >
          <td className="py-3 pr-2 align-top text-xs text-slate-600">{dateTime(delivery.attemptedAt ?? delivery.scheduledAt)}</td>
          <td className="py-3 pr-2 align-top">
            <p className="font-mono text-xs">{delivery.eventType}</p>
            <Link
              href={logHref({ event: delivery.eventId })}
              className="font-mono text-xs text-brand-700 underline"
              title="This event's attempts only"
            >
              {delivery.eventId}
            </Link>
          </td>
          <td className="py-3 pr-2 align-top">{delivery.attempt}</td>
          <td className={`py-3 pr-2 align-top font-medium ${STATUS_STYLES[delivery.status]}`} data-testid="delivery-status">
            {delivery.status}
            {delivery.errorCode && <p className="font-mono text-xs font-normal text-slate-500">{delivery.errorCode}</p>}
          </td>
          <td className="max-w-xs py-3 pr-2 align-top">
            <p className="font-mono text-xs" data-testid="delivery-response-status">
              {delivery.responseStatus ?? '—'}
            </p>
            {delivery.responseBody && (
              <p className="truncate font-mono text-xs text-slate-500" title={delivery.responseBody}>
                {delivery.responseBody.slice(0, BODY_PREVIEW_CHARS)}
              </p>
            )}
            <details className="text-xs">
              <summary className="cursor-pointer text-brand-700">Request and response</summary>
              <p className="mt-1 font-medium">Request body (POST)</p>
              <pre className="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2">{delivery.requestBody}</pre>
              <p className="mt-1 font-medium">Response (first 2 KiB)</p>
              <pre className="max-h-48 overflow-auto whitespace-pre-wrap break-all rounded bg-slate-50 p-2">
                {delivery.responseBody ?? delivery.errorMessage ?? '—'}
              </pre>
            </details>
          </td>
          <td className="py-3 pr-2 align-top text-xs">{delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`}</td>
          <td className="py-3 pr-2 align-top text-xs text-slate-600">{dateTime(delivery.nextAttemptAt)}</td>
          <td className="py-3 align-top">
            {canResend && delivery.status !== 'held' && delivery.status !== 'pending' && delivery.status !== 'sending' && (
              <ResendButton endpointId={endpointId} eventId={delivery.eventId} />
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
