import { and, asc, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { webhookEndpoints, type WebhookEndpointRow } from '@/lib/db/schema';
import type { WebhookOwner } from './get-webhook-endpoint';

/** The owner's endpoints, oldest first (at most WEBHOOK_LIMITS.endpointsPerMode, so one page). */
export async function listWebhookEndpoints({ owner }: { owner: WebhookOwner }): Promise<WebhookEndpointRow[]> {
  return getDb()
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.merchantId, owner.merchantId), eq(webhookEndpoints.mode, owner.mode)))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
}
