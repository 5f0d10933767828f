/**
 * createWebhookEndpoint — a new endpoint in the owner's mode, with a fresh signing secret that is
 * returned once (the API never shows it again; the dashboard can reveal it).
 *
 *  - live endpoints: https to a public address; test endpoints may use http, and loopback where
 *    WEBHOOKS_ALLOW_LOOPBACK allows it (endpoint-url.ts, check-webhook-url.ts);
 *  - eventTypes default to ["*"] (every type, also future ones);
 *  - at most WEBHOOK_LIMITS.endpointsPerMode endpoints per merchant and mode (serialised per owner
 *    with an advisory lock, so concurrent creates cannot overshoot).
 */
import { and, count, eq, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookEndpoints, type WebhookEndpointRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { ALL_EVENT_TYPES } from './event-types';
import { acceptEndpointUrl } from './endpoint-url';
import type { WebhookOwner } from './get-webhook-endpoint';
import { WEBHOOK_LIMITS, type CreateWebhookEndpointBody } from './schemas';
import { sealWebhookSecret } from './secrets';
import { newWebhookSecret } from './new-webhook-secret';

export async function createWebhookEndpoint({
  owner,
  input,
  db = getDb(),
}: {
  owner: WebhookOwner;
  input: CreateWebhookEndpointBody;
  /** The caller's transaction (the dashboard's, with its audit entry); a savepoint is used inside it. */
  db?: DbOrTx;
}): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const url = acceptEndpointUrl(input.url, owner.mode);
  const id = newId('webhookEndpoint');
  const secret = newWebhookSecret();
  // App time, like the events' created_at it is compared with in the relay.
  const now = new Date();
  const endpoint = await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`webhook-endpoints:${owner.merchantId}:${owner.mode}`}, 0))`);
    const [existing] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.merchantId, owner.merchantId), eq(webhookEndpoints.mode, owner.mode)));
    if (existing!.n >= WEBHOOK_LIMITS.endpointsPerMode) {
      throw new AppError(
        'webhook_endpoint_limit',
        `You already have ${existing!.n} ${owner.mode}-mode webhook endpoints, the most allowed. Delete one, or subscribe an existing endpoint to more event types.`,
      );
    }
    const [row] = await tx
      .insert(webhookEndpoints)
      .values({
        id,
        merchantId: owner.merchantId,
        mode: owner.mode,
        url,
        description: input.description || null,
        eventTypes: input.eventTypes ?? [ALL_EVENT_TYPES],
        enabled: input.enabled ?? true,
        signingSecret: sealWebhookSecret(id, secret),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return row!;
  });
  return { endpoint, secret };
}
