import type { WebhookEndpointRow, WebhookEventRow } from '@/lib/db/schema';
import type { WebhookEndpointResource, WebhookEventPayload } from './schemas';

/** An endpoint as the API returns it: never its secret (that is shown once, at creation and rotation). */
export function serializeWebhookEndpoint(row: WebhookEndpointRow, now: Date = new Date()): WebhookEndpointResource {
  const overlapOpen = row.previousSigningSecret !== null && row.previousSecretExpiresAt !== null && row.previousSecretExpiresAt > now;
  return {
    id: row.id,
    object: 'webhook_endpoint',
    mode: row.mode,
    url: row.url,
    description: row.description,
    eventTypes: row.eventTypes,
    enabled: row.enabled,
    status: row.status,
    failingSince: row.failingSince?.toISOString() ?? null,
    disabledReason: row.disabledReason,
    previousSecretExpiresAt: overlapOpen ? row.previousSecretExpiresAt!.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/**
 * An event as GET /api/events returns it: the payload frozen when it happened, exactly as delivered.
 * An event from before sequence numbers has its number from the row (the migration numbered it).
 */
export function serializeWebhookEvent(row: WebhookEventRow): WebhookEventPayload {
  const payload = row.payload as WebhookEventPayload;
  return payload.sequence === undefined && row.sequence !== null ? { ...payload, sequence: row.sequence } : payload;
}
