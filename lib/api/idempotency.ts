/**
 * Idempotency-Key support (as Stripe has it): the same key with the same request returns the first
 * response again; the same key with a different request is idempotency_conflict (409).
 *
 * The stored row is the lock. The request's work and the row commit in one transaction; a
 * concurrent request with the same key blocks on the primary-key insert until that commit, then
 * finds the stored response. If the first request fails, its transaction rolls back, nothing is
 * stored, and the waiting request runs as if it were first. So 50 parallel requests make one charge.
 *
 * A key belongs to the merchant, mode and kind of the API key that sent it: a test key reusing a
 * live request's Idempotency-Key runs its own request instead of replaying the live response.
 */
import { createHash } from 'node:crypto';
import { and, eq, lt } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { idempotencyKeys, type ApiKey } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** Keys are honoured for at least this long; the cleanup job deletes older rows. */
const IDEMPOTENCY_RETENTION_MS = 48 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

export function readIdempotencyKey(request: Request): string | undefined {
  const key = request.headers.get('idempotency-key');
  if (key === null) return undefined;
  if (key.length === 0 || key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x21-\x7e]+$/.test(key)) {
    throw new AppError('invalid_request', `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters.`, {
      param: 'Idempotency-Key',
    });
  }
  return key;
}

/** SHA-256 of the operation and the canonical (key-sorted) JSON of the parsed body. */
export function requestFingerprint(operation: string, body: unknown): string {
  return createHash('sha256').update(operation).update('\n').update(canonicalJson(body)).digest('hex');
}

export async function withIdempotency(
  options: { apiKey: Pick<ApiKey, 'merchantId' | 'mode' | 'kind'>; key: string | undefined; fingerprint: string },
  run: (tx: DbOrTx) => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  const { key, apiKey } = options;
  const scope = { merchantId: apiKey.merchantId, mode: apiKey.mode, keyKind: apiKey.kind };
  const isThisKey = (idempotencyKey: string) =>
    and(
      eq(idempotencyKeys.merchantId, scope.merchantId),
      eq(idempotencyKeys.mode, scope.mode),
      eq(idempotencyKeys.keyKind, scope.keyKind),
      eq(idempotencyKeys.key, idempotencyKey),
    );
  if (key === undefined) {
    // No key, nothing to store: `run` makes its own writes atomic (createCharge: one statement).
    const result = await run(getDb());
    return { ...result, replayed: false };
  }
  return getDb().transaction(async (tx) => {
    const claimed = await tx
      .insert(idempotencyKeys)
      .values({ ...scope, key, requestHash: options.fingerprint, responseStatus: 0, responseBody: {} })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (claimed.length === 0) {
      const [stored] = await tx.select().from(idempotencyKeys).where(isThisKey(key));
      if (!stored) throw new Error('idempotency row vanished between insert and select');
      if (stored.requestHash !== options.fingerprint) {
        throw new AppError(
          'idempotency_conflict',
          'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
          { param: 'Idempotency-Key' },
        );
      }
      return { status: stored.responseStatus, body: stored.responseBody, replayed: true };
    }
    const result = await run(tx);
    await tx
      .update(idempotencyKeys)
      .set({ responseStatus: result.status, responseBody: result.body as object })
      .where(isThisKey(key));
    return { ...result, replayed: false };
  });
}

export async function deleteExpiredIdempotencyKeys(now = new Date()): Promise<number> {
  const deleted = await getDb()
    .delete(idempotencyKeys)
    .where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - IDEMPOTENCY_RETENTION_MS)))
    .returning({ key: idempotencyKeys.key });
  return deleted.length;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
