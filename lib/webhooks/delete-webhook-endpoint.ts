import { eq } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookEndpoints } from '@/lib/db/schema';
import { getWebhookEndpoint, type WebhookOwner } from './get-webhook-endpoint';

/**
 * Deletes an endpoint and its delivery log (ON DELETE CASCADE). Jobs still queued for it find no
 * delivery row and do nothing; events stay available through GET /api/events.
 */
export async function deleteWebhookEndpoint({
  owner,
  endpointId,
  db = getDb(),
}: {
  owner: WebhookOwner;
  endpointId: string;
  /** The caller's transaction, if any (a savepoint is used inside it). */
  db?: DbOrTx;
}): Promise<{ id: string; url: string }> {
  return db.transaction(async (tx) => {
    const endpoint = await getWebhookEndpoint({ owner, endpointId, db: tx, forUpdate: true });
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    return { id: endpoint.id, url: endpoint.url };
  });
}
