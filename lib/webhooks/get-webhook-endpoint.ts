/**
 * Reading one endpoint of its owner. Every endpoint verb is scoped by merchant and mode: another
 * merchant's endpoint, or one of the other mode, is "not found" (404, never 403).
 */
import { and, eq } from 'drizzle-orm';
import type { ApiContext } from '@/lib/context';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookEndpoints, type ApiKeyMode, type WebhookEndpointRow } from '@/lib/db/schema';
import { AppError, inputExcerpt } from '@/lib/errors';

/** Whose endpoints: the API key's merchant and mode (the dashboard passes the signed-in merchant's). */
export interface WebhookOwner {
  merchantId: string;
  mode: ApiKeyMode;
}

export function ownerOf(ctx: ApiContext): WebhookOwner {
  return { merchantId: ctx.merchant.id, mode: ctx.apiKey.mode };
}

export async function getWebhookEndpoint({
  owner,
  endpointId,
  db = getDb(),
  forUpdate = false,
}: {
  owner: WebhookOwner;
  endpointId: string;
  db?: DbOrTx;
  forUpdate?: boolean;
}): Promise<WebhookEndpointRow> {
  const query = db
    .select()
    .from(webhookEndpoints)
    .where(
      and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.merchantId, owner.merchantId), eq(webhookEndpoints.mode, owner.mode)),
    );
  const [endpoint] = forUpdate ? await query.for('update') : await query;
  if (!endpoint)
    throw new AppError('not_found', `No webhook endpoint ${inputExcerpt(endpointId)} for this ${owner.mode} key.`, { param: 'endpointId' });
  return endpoint;
}
