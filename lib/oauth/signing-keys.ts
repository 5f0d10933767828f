/**
 * The provider's signing keys (RS256, the algorithm every OpenID client supports), stored sealed under
 * the wallet master key (aad binds each to its kid) in `oidc_signing_keys`.
 *
 *  - The newest key that is not retired signs; the first start creates one.
 *  - `rotateSigningKey` (admin CLI `oauth rotate-signing-key`) creates a new key and retires the
 *    others: a retired key stays in the JWKS until the last ID token it signed has expired
 *    (`publishedUntil`), so clients can still verify them; then it leaves the JWKS.
 *  - Access and refresh tokens are opaque (looked up in the database), so no other token depends on a key.
 */
import 'server-only';
import { generateKeyPairSync } from 'node:crypto';
import { and, desc, gt, isNull, or, sql } from 'drizzle-orm';
import type { JWK } from 'oidc-provider';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { oidcSigningKeys } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { masterKeyById, masterKeyRing, open, seal } from '@/lib/keyring/master-keys';
import { ID_TOKEN_TTL_SECONDS } from './token-lifetimes';

const ALG = 'RS256';
/** Serialises key creation between instances (any constant unique in the app). */
const SIGNING_KEY_LOCK = 7_341_002;

function aadFor(kid: string): Buffer {
  return Buffer.from(JSON.stringify(['chargeport.oidc-signing-key.v1', kid]), 'utf8');
}

export interface SigningKeySet {
  /** Private JWKs, the signing key first. */
  keys: JWK[];
  /** Changes whenever the set does (the provider is rebuilt then). */
  version: string;
}

/** Every key to publish, the current one first; creates the first key when there is none. */
export async function loadSigningKeys(now = new Date()): Promise<SigningKeySet> {
  let rows = await publishedKeys(getDb(), now);
  if (!rows.some((row) => row.retiredAt === null)) {
    await getDb().transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${SIGNING_KEY_LOCK})`);
      if (!(await publishedKeys(tx, now)).some((row) => row.retiredAt === null)) await insertKey(tx);
    });
    rows = await publishedKeys(getDb(), now);
  }
  return {
    keys: rows.map((row) => ({ ...openPrivateJwk(row.id, row.sealedPrivateJwk), kid: row.id, alg: row.alg, use: 'sig' }) as JWK),
    version: rows.map((row) => `${row.id}:${row.retiredAt ? 'r' : 'c'}`).join(','),
  };
}

/** A new signing key; the previous ones are retired and stay published until their ID tokens expire. */
export async function rotateSigningKey(now = new Date()): Promise<{ kid: string; retired: { kid: string; publishedUntil: Date }[] }> {
  return getDb().transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SIGNING_KEY_LOCK})`);
    const publishedUntil = new Date(now.getTime() + ID_TOKEN_TTL_SECONDS * 1000 + 60_000);
    const retired = await tx
      .update(oidcSigningKeys)
      .set({ retiredAt: now, publishedUntil })
      .where(isNull(oidcSigningKeys.retiredAt))
      .returning({ kid: oidcSigningKeys.id });
    const kid = await insertKey(tx, now);
    return { kid, retired: retired.map((row) => ({ kid: row.kid, publishedUntil })) };
  });
}

/** For the admin CLI: every key with its state. */
export async function listSigningKeys(
  now = new Date(),
): Promise<{ kid: string; state: 'signing' | 'published' | 'expired'; createdAt: Date; publishedUntil: Date | null }[]> {
  const rows = await getDb().select().from(oidcSigningKeys).orderBy(desc(oidcSigningKeys.createdAt));
  return rows.map((row) => ({
    kid: row.id,
    state: row.retiredAt === null ? 'signing' : row.publishedUntil && row.publishedUntil > now ? 'published' : 'expired',
    createdAt: row.createdAt,
    publishedUntil: row.publishedUntil,
  }));
}

function publishedKeys(db: DbOrTx, now: Date) {
  return db
    .select()
    .from(oidcSigningKeys)
    .where(or(isNull(oidcSigningKeys.retiredAt), and(gt(oidcSigningKeys.publishedUntil, now))))
    .orderBy(sql`${oidcSigningKeys.retiredAt} is not null`, desc(oidcSigningKeys.createdAt));
}

async function insertKey(tx: DbOrTx, now = new Date()): Promise<string> {
  const kid = newId('oauthSigningKey');
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateJwk = privateKey.export({ format: 'jwk' });
  const { current } = masterKeyRing();
  await tx.insert(oidcSigningKeys).values({
    id: kid,
    alg: ALG,
    sealedPrivateJwk: `${current.id}:${seal(current.key, Buffer.from(JSON.stringify(privateJwk), 'utf8'), aadFor(kid))}`,
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: ALG, use: 'sig' },
    createdAt: now,
  });
  return kid;
}

function openPrivateJwk(kid: string, stored: string): Record<string, unknown> {
  const separator = stored.indexOf(':');
  const context = `The OpenID signing key ${kid}`;
  const key = masterKeyById(stored.slice(0, separator), context);
  return JSON.parse(open(key, stored.slice(separator + 1), aadFor(kid), context).toString('utf8')) as Record<string, unknown>;
}

/** Master-key rotation (lib/admin/sealed-columns.ts): the stored private JWK, opened and sealed under the current key. */
export function resealSigningKey(kid: string, stored: string): string {
  const { current } = masterKeyRing();
  return `${current.id}:${seal(current.key, Buffer.from(JSON.stringify(openPrivateJwk(kid, stored)), 'utf8'), aadFor(kid))}`;
}
