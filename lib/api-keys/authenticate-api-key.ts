import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { apiKeys, merchants, type ApiKey, type Merchant } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { cachedCredentials } from '@/lib/merchants/credential-cache';
import { API_KEY_PATTERN, hashApiKey } from './key-material';

/** last_used_at is written at most this often per key, so reads do not turn into a write per request. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** When this process last wrote a key's last_used_at (the cached row does not see its own writes). */
const lastUsedWritten = new Map<string, number>();

export async function authenticateApiKey(header: string | null): Promise<{ merchant: Merchant; apiKey: ApiKey }> {
  const presented = header?.trim();
  if (!presented) {
    throw new AppError('missing_api_key', 'Send your API key in the x-api-key header. Find it in the dashboard under Settings → API Keys.');
  }
  if (!API_KEY_PATTERN.test(presented)) {
    throw new AppError('invalid_api_key', 'The x-api-key header is not a Chargeport API key (cp_test_… or cp_live_…).');
  }
  const hash = hashApiKey(presented);
  const row = await cachedCredentials(hash, () => loadCredentials(hash));
  // A rolled key has revoked_at in the future: it works until then (the roll's overlap).
  if (!row || (row.apiKey.revokedAt && row.apiKey.revokedAt.getTime() <= Date.now())) {
    throw new AppError('invalid_api_key', 'This API key is unknown or has been revoked.');
  }
  noteKeyUsed(row.apiKey);
  return row;
}

async function loadCredentials(hash: string): Promise<{ merchant: Merchant; apiKey: ApiKey } | undefined> {
  const [row] = await getDb()
    .select({ apiKey: apiKeys, merchant: merchants })
    .from(apiKeys)
    .innerJoin(merchants, eq(apiKeys.merchantId, merchants.id))
    .where(eq(apiKeys.hash, hash));
  return row;
}

function noteKeyUsed(apiKey: ApiKey): void {
  const now = Date.now();
  const last = Math.max(apiKey.lastUsedAt?.getTime() ?? 0, lastUsedWritten.get(apiKey.id) ?? 0);
  if (now - last <= LAST_USED_RESOLUTION_MS) return;
  if (lastUsedWritten.size >= 10_000) lastUsedWritten.clear();
  lastUsedWritten.set(apiKey.id, now);
  // Fire and forget: a lost update only makes "last used" a minute older.
  void getDb()
    .update(apiKeys)
    .set({ lastUsedAt: new Date(now) })
    .where(eq(apiKeys.id, apiKey.id))
    .catch(() => {});
}
