import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { apiKeys, merchants, type ApiKey, type Merchant } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { API_KEY_PATTERN, hashApiKey } from './key-material';

/** last_used_at is written at most this often per key, so reads do not turn into a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function authenticateApiKey(header: string | null): Promise<{ merchant: Merchant; apiKey: ApiKey }> {
  const presented = header?.trim();
  if (!presented) {
    throw new AppError('missing_api_key', 'Send your API key in the x-api-key header. Find it in the dashboard under Settings → API Keys.');
  }
  if (!API_KEY_PATTERN.test(presented)) {
    throw new AppError('invalid_api_key', 'The x-api-key header is not a Chargeport API key (cp_test_… or cp_live_…).');
  }
  const [row] = await getDb()
    .select({ apiKey: apiKeys, merchant: merchants })
    .from(apiKeys)
    .innerJoin(merchants, eq(apiKeys.merchantId, merchants.id))
    .where(eq(apiKeys.hash, hashApiKey(presented)));
  // A rolled key has revoked_at in the future: it works until then (the roll's overlap).
  if (!row || (row.apiKey.revokedAt && row.apiKey.revokedAt.getTime() <= Date.now())) {
    throw new AppError('invalid_api_key', 'This API key is unknown or has been revoked.');
  }
  const now = Date.now();
  if (!row.apiKey.lastUsedAt || now - row.apiKey.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    // Fire and forget: a lost update only makes "last used" a minute older.
    void getDb()
      .update(apiKeys)
      .set({ lastUsedAt: new Date(now) })
      .where(eq(apiKeys.id, row.apiKey.id))
      .catch(() => {});
  }
  return row;
}
