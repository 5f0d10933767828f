import { and, eq, gt, isNull, or } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { apiKeys } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { forgetMerchantCredentials } from '@/lib/merchants/credential-cache';

/** Revoke a key at once; requests with it get invalid_api_key from then on. */
export async function revokeApiKey(keyId: string): Promise<void> {
  const revoked = await getDb()
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, keyId), or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, new Date()))))
    .returning({ id: apiKeys.id, merchantId: apiKeys.merchantId });
  if (revoked.length === 0) {
    const [exists] = await getDb().select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.id, keyId));
    throw new AppError('not_found', exists ? `Key ${keyId} is already revoked.` : `No key ${keyId}.`);
  }
  // Other instances hear of it by NOTIFY (migration 0019); this one forgets now.
  forgetMerchantCredentials(revoked[0]!.merchantId);
}
