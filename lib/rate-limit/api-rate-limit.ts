/**
 * Per-API-key rate limit, with rate-limiter-flexible's PostgreSQL store so the budget is shared by
 * every app instance on the database. A fixed one-minute window of API_RATE_LIMIT_PER_MINUTE
 * requests; over it → 429 rate_limited with Retry-After.
 *
 * Every merchant API call pays for this check, so it runs as the library's own single prepared
 * upsert (RateLimiterPostgres) over postgres.js, not through the drizzle store the sign-in limits use
 * (which builds the query anew each time: about half a millisecond per request, ADR 0009).
 *
 * Leases: a busy key does not need a round trip per request. When the shared budget has room, an
 * instance takes several points at once (one upsert) and spends them locally until they run out or
 * the window ends. Points are taken before they are spent, so the shared budget is never exceeded,
 * whatever the number of instances. A lease is at most 1/64 of what the key had left (and at most
 * LEASE_MAX), so points an instance took but did not use — refused early elsewhere — are bounded by
 * that; near the limit (fewer than 128 points left) every request is counted on its own. One refill
 * per key and instance at a time.
 *
 * Each counted request gets the RateLimit-Limit / -Remaining / -Reset headers (IETF draft) from what
 * the instance knows, without another round trip: Remaining is what the shared budget had left when
 * the current lease was taken plus the lease's unspent points. With one instance that is exact. With
 * several it is an approximation: too high by what the others took since this lease was taken, too low
 * by what the others hold leased but have not spent (at most LEASE_MAX each). The limit stays exact.
 */
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { lt } from 'drizzle-orm';
import { getDb, getSql } from '@/lib/db/client';
import { apiRateLimits } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';

/** Points taken from a key's shared budget, not yet spent by this instance, for the window ending at windowEndsAt. */
interface Lease {
  points: number;
  windowEndsAt: number;
  /** What the shared budget had left after the lease was taken: sizes the next one. */
  remainingAfter: number;
}

interface ApiLimiterState {
  limiter: RateLimiterPostgres;
  leases: Map<string, Lease>;
  refills: Map<string, Promise<void>>;
}

/** A lease is at most this share of what the key has left in its window … */
const LEASE_DIVISOR = 64;
/** … and at most this many points. */
const LEASE_MAX = 16;
/** Leases of keys not seen for a while are dropped past this many keys. */
const MAX_LEASED_KEYS = 10_000;

const globalForLimiter = globalThis as unknown as { __chargeportApiLimiter?: ApiLimiterState };

/** The `pool` interface RateLimiterPostgres calls (node-postgres style), served by postgres.js. */
function postgresJsPool() {
  return {
    query: async ({ text, values }: { text: string; values?: unknown[]; name?: string }) => ({
      rows: await getSql().unsafe(text, (values ?? []) as never[], { prepare: true }),
    }),
  };
}

function newLimiter(): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: postgresJsPool(),
    storeType: 'pool',
    tableName: 'api_rate_limits', // migration 0020; lib/jobs/scheduler.ts deletes expired rows
    tableCreated: true,
    keyPrefix: 'api',
    points: env().API_RATE_LIMIT_PER_MINUTE,
    duration: 60,
    // The expired-row cleanup timer would keep test processes alive; lib/jobs deletes expired rows.
    clearExpiredByTimeout: false,
  });
}

/** An instance's limiter with its own leases (tests make several to stand for several instances). */
export function createApiLimiterState(): ApiLimiterState {
  return { limiter: newLimiter(), leases: new Map(), refills: new Map() };
}

function processState(): ApiLimiterState {
  globalForLimiter.__chargeportApiLimiter ??= createApiLimiterState();
  return globalForLimiter.__chargeportApiLimiter;
}

/** The key's budget as this request leaves it, for the RateLimit-* headers. */
export interface ApiRateLimitStatus {
  limit: number;
  /** Requests left in the window (see the header comment: from the lease, an upper bound with several instances). */
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
}

/** Counts one request of `apiKeyId`; throws rate_limited (with Retry-After and RateLimit-*) past the budget. */
export async function consumeApiRateLimit(apiKeyId: string, state: ApiLimiterState = processState()): Promise<ApiRateLimitStatus> {
  for (;;) {
    const lease = state.leases.get(apiKeyId);
    if (lease && lease.points > 0 && lease.windowEndsAt > Date.now()) {
      lease.points--;
      return statusOf(lease);
    }
    const refill = state.refills.get(apiKeyId);
    if (refill) {
      await refill; // then try the new lease (another waiter may have emptied it)
      continue;
    }
    return takeLease(state, apiKeyId, lease);
  }
}

function statusOf(lease: Lease): ApiRateLimitStatus {
  return {
    limit: env().API_RATE_LIMIT_PER_MINUTE,
    remaining: Math.max(0, lease.remainingAfter + lease.points),
    resetSeconds: Math.max(0, Math.ceil((lease.windowEndsAt - Date.now()) / 1000)),
  };
}

/** RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset (IETF draft-ietf-httpapi-ratelimit-headers). */
export function rateLimitHeaders(status: ApiRateLimitStatus): Record<string, string> {
  return {
    'ratelimit-limit': String(status.limit),
    'ratelimit-remaining': String(status.remaining),
    'ratelimit-reset': String(status.resetSeconds),
  };
}

/** Takes a lease for this request and the next few (one upsert); this request spends one point of it. */
async function takeLease(state: ApiLimiterState, apiKeyId: string, previous: Lease | undefined): Promise<ApiRateLimitStatus> {
  const remaining = previous && previous.windowEndsAt > Date.now() ? previous.remainingAfter : env().API_RATE_LIMIT_PER_MINUTE;
  const size = Math.max(1, Math.min(LEASE_MAX, Math.floor(remaining / LEASE_DIVISOR)));
  const refill = (async () => {
    const taken = await state.limiter.consume(apiKeyId, size);
    if (state.leases.size >= MAX_LEASED_KEYS) state.leases.clear();
    const lease: Lease = { points: size - 1, windowEndsAt: Date.now() + taken.msBeforeNext, remainingAfter: taken.remainingPoints };
    state.leases.set(apiKeyId, lease);
    return lease;
  })();
  // Waiters only need to know the refill ended; its outcome is this request's.
  const settled = refill.then(
    () => undefined,
    () => undefined,
  );
  state.refills.set(apiKeyId, settled);
  void settled.finally(() => state.refills.delete(apiKeyId));
  try {
    return statusOf(await refill);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      // Spent: requests until the window ends go to the shared count one by one.
      const spent: Lease = { points: 0, windowEndsAt: Date.now() + rejection.msBeforeNext, remainingAfter: 0 };
      state.leases.set(apiKeyId, spent);
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new AppError('rate_limited', `Too many requests for this API key. Retry after ${retryAfter} s.`, {
        headers: { 'retry-after': String(retryAfter), ...rateLimitHeaders(statusOf(spent)) },
      });
    }
    throw rejection;
  }
}

/** Tests change the limit between cases (and a fresh state stands for another instance). */
export function resetApiRateLimiter(): void {
  globalForLimiter.__chargeportApiLimiter = undefined;
}

/** Windows that ended: the scheduler deletes them every 10 minutes. */
export async function deleteExpiredApiRateLimits(now = Date.now()): Promise<number> {
  const deleted = await getDb().delete(apiRateLimits).where(lt(apiRateLimits.expire, now)).returning({ key: apiRateLimits.key });
  return deleted.length;
}
