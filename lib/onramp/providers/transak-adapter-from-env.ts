/**
 * Transak on this deployment: the adapter built from TRANSAK_* configuration, with its partner access
 * token kept in `onramp_access_tokens` (sealed with the wallet master key).
 *
 * Minting a token invalidates the previous one, so exactly one instance refreshes at a time (row lock
 * under an advisory lock) and only when the stored token is within a day of expiry. Webhooks signed with
 * the replaced token just before a refresh still verify for ten minutes.
 */
import { eq, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { onrampAccessTokens } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { masterKeyById, masterKeyRing, open, seal } from '@/lib/keyring/master-keys';
import { createTransakAdapter, refreshTransakAccessToken } from './transak';
import type { FetchLike, OnrampProviderAdapter } from './types';

const REFRESH_BEFORE_EXPIRY_MS = 24 * 60 * 60_000;
const PREVIOUS_TOKEN_GRACE_MS = 10 * 60_000;
const REFRESH_LOCK_ID = 727_274_050;
const AAD = Buffer.from('onramp-access-token:transak');

export function transakAdapterFromEnv(fetchImpl: FetchLike = fetch): OnrampProviderAdapter | undefined {
  const config = env();
  if (!config.TRANSAK_API_KEY || !config.TRANSAK_API_SECRET || !config.TRANSAK_REFERRER_DOMAIN) return undefined;
  const credentials = {
    fetch: fetchImpl,
    environment: config.TRANSAK_ENVIRONMENT,
    apiKey: config.TRANSAK_API_KEY,
    apiSecret: config.TRANSAK_API_SECRET,
  };
  return createTransakAdapter(
    { environment: config.TRANSAK_ENVIRONMENT, apiKey: config.TRANSAK_API_KEY, referrerDomain: config.TRANSAK_REFERRER_DOMAIN },
    {
      fetch: fetchImpl,
      accessToken: () => currentTransakAccessToken(() => refreshTransakAccessToken(credentials)),
      webhookAccessTokens: () => transakWebhookAccessTokens(),
    },
  );
}

type Mint = () => Promise<{ accessToken: string; expiresAt: Date }>;

/** The stored token, refreshed first when it is missing or about to expire. */
async function currentTransakAccessToken(mint: Mint, now = new Date()): Promise<string> {
  const [stored] = await getDb().select().from(onrampAccessTokens).where(eq(onrampAccessTokens.providerId, 'transak'));
  if (stored && stored.expiresAt.getTime() - now.getTime() > REFRESH_BEFORE_EXPIRY_MS)
    return openToken(stored.sealedToken, stored.masterKeyId);

  return getDb().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${REFRESH_LOCK_ID})`);
    const [again] = await tx.select().from(onrampAccessTokens).where(eq(onrampAccessTokens.providerId, 'transak'));
    // Another instance refreshed while this one waited for the lock.
    if (again && again.expiresAt.getTime() - now.getTime() > REFRESH_BEFORE_EXPIRY_MS)
      return openToken(again.sealedToken, again.masterKeyId);
    const minted = await mint();
    const { current } = masterKeyRing();
    const sealedToken = seal(current.key, Buffer.from(minted.accessToken), AAD);
    const row = {
      providerId: 'transak',
      sealedToken,
      masterKeyId: current.id,
      expiresAt: minted.expiresAt,
      previousSealedToken: again?.sealedToken ?? null,
      previousMasterKeyId: again?.masterKeyId ?? null,
      previousValidUntil: again ? new Date(now.getTime() + PREVIOUS_TOKEN_GRACE_MS) : null,
    };
    await tx.insert(onrampAccessTokens).values(row).onConflictDoUpdate({ target: onrampAccessTokens.providerId, set: row });
    return minted.accessToken;
  });
}

/** Tokens that may have signed a webhook now: the current one and, shortly after a refresh, the previous one. */
async function transakWebhookAccessTokens(now = new Date()): Promise<string[]> {
  const [stored] = await getDb().select().from(onrampAccessTokens).where(eq(onrampAccessTokens.providerId, 'transak'));
  if (!stored) return [];
  const tokens = [openToken(stored.sealedToken, stored.masterKeyId)];
  if (stored.previousSealedToken && stored.previousMasterKeyId && stored.previousValidUntil && stored.previousValidUntil > now) {
    tokens.push(openToken(stored.previousSealedToken, stored.previousMasterKeyId));
  }
  return tokens;
}

/** Opens a sealed token with the key it names and seals it again under the current master key (master-key rotation). */
export function resealProviderToken(sealedToken: string, masterKeyId: string): { sealed: string; masterKeyId: string } {
  const { current } = masterKeyRing();
  return { sealed: seal(current.key, Buffer.from(openToken(sealedToken, masterKeyId)), AAD), masterKeyId: current.id };
}

function openToken(sealedToken: string, masterKeyId: string): string {
  return open(masterKeyById(masterKeyId, 'The Transak access token'), sealedToken, AAD, 'The Transak access token').toString('utf8');
}
