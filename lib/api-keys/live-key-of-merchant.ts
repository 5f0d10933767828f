/**
 * The key a roll or a revocation acts on, locked: it must belong to the actor's merchant (another
 * merchant's key is "not found") and still work; a key already rolled is in its overlap and is left
 * to expire (act on its replacement).
 */
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { apiKeys, type ApiKey } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

export async function liveKeyOfMerchant(tx: DbOrTx, merchantId: string, keyId: string, now: Date): Promise<ApiKey> {
  const [key] = await tx
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.merchantId, merchantId)))
    .for('update');
  if (!key || (key.revokedAt && key.revokedAt <= now)) throw new AppError('not_found', `No active key ${keyId}.`, { param: 'keyId' });
  if (key.revokedAt)
    throw new AppError('invalid_request', 'This key was already rolled and expires soon; roll or revoke its replacement.', {
      param: 'keyId',
    });
  return key;
}
