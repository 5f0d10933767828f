import { eq } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookEndpoints, type WebhookEndpointRow } from '@/lib/db/schema';
import { acceptEndpointUrl } from './endpoint-url';
import { getWebhookEndpoint, type WebhookOwner } from './get-webhook-endpoint';
import type { UpdateWebhookEndpointBody } from './schemas';
import { webhookEndpointMachine } from './state';

/**
 * Changes an endpoint's URL, event types, description or enabled flag. Enabling it again (after the
 * merchant paused it, or after a 410 disabled it) makes it active; deliveries resume with the next
 * event. A new URL is checked like at creation.
 */
export async function updateWebhookEndpoint({
  owner,
  endpointId,
  input,
  db = getDb(),
}: {
  owner: WebhookOwner;
  endpointId: string;
  input: UpdateWebhookEndpointBody;
  /** The caller's transaction, if any (a savepoint is used inside it). */
  db?: DbOrTx;
}): Promise<WebhookEndpointRow> {
  const url = input.url === undefined ? undefined : acceptEndpointUrl(input.url, owner.mode);
  return db.transaction(async (tx) => {
    const current = await getWebhookEndpoint({ owner, endpointId, db: tx, forUpdate: true });
    // A 410 disabled it; the merchant enabling it again says the endpoint is back.
    const reEnabled = input.enabled === true && current.status === 'disabled';
    if (reEnabled) webhookEndpointMachine.assert(current.status, 'active', current.id);
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({
        ...(url === undefined ? {} : { url }),
        ...(input.eventTypes === undefined ? {} : { eventTypes: input.eventTypes }),
        ...(input.description === undefined ? {} : { description: input.description || null }),
        ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
        ...(reEnabled ? { status: 'active' as const, disabledReason: null } : {}),
        updatedAt: new Date(),
      })
      .where(eq(webhookEndpoints.id, current.id))
      .returning();
    return updated!;
  });
}
