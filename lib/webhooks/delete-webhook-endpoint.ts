import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { webhookEndpoints } from '@/lib/db/schema';
import { getWebhookEndpoint, type WebhookOwner } from './get-webhook-endpoint';

/**
 * Deletes an endpoint and its delivery log (ON DELETE CASCADE). Jobs still queued for it find no
 * delivery row and do nothing; events stay available through GET /api/events.
 */
export async function deleteWebhookEndpoint({ owner, endpointId }: { owner: WebhookOwner; endpointId: string }): Promise<{ id: string }> {
  return getDb().transaction(async (tx) => {
    const endpoint = await getWebhookEndpoint({ owner, endpointId, db: tx, forUpdate: true });
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    return { id: endpoint.id };
  });
}
