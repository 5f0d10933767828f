/**
 * The OAuth app a dashboard verb acts on: it must belong to the actor's merchant and not be revoked;
 * another merchant's app is "not found", so a client id alone opens nothing.
 */
import 'server-only';
import { and, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { oauthClients, type OAuthClient } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

export async function appOfMerchant(tx: DbOrTx, merchantId: string, clientId: string): Promise<OAuthClient> {
  const [app] = await tx
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.id, clientId), eq(oauthClients.merchantId, merchantId), isNull(oauthClients.revokedAt)));
  if (!app) throw new AppError('not_found', `No app ${clientId} on this merchant.`, { param: 'clientId' });
  return app;
}
