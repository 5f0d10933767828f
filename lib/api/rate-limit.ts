/**
 * Per-API-key rate limit, with rate-limiter-flexible's PostgreSQL store so the budget is shared by
 * every app instance on the database. A fixed one-minute window of API_RATE_LIMIT_PER_MINUTE
 * requests; over it → 429 rate_limited with Retry-After.
 *
 * Every merchant API call pays for this check, so it runs as the library's own single prepared
 * upsert (RateLimiterPostgres) over postgres.js, not through the drizzle store the sign-in limits use
 * (which builds the query anew each time: about half a millisecond per request, ADR 0009).
 */
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { lt } from 'drizzle-orm';
import { getDb, getSql } from '@/lib/db/client';
import { apiRateLimits } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';

const globalForLimiter = globalThis as unknown as { __chargeportApiLimiter?: RateLimiterPostgres };

/** The `pool` interface RateLimiterPostgres calls (node-postgres style), served by postgres.js. */
function postgresJsPool() {
  return {
    query: async ({ text, values }: { text: string; values?: unknown[]; name?: string }) => ({
      rows: await getSql().unsafe(text, (values ?? []) as never[], { prepare: true }),
    }),
  };
}

function limiter(): RateLimiterPostgres {
  globalForLimiter.__chargeportApiLimiter ??= new RateLimiterPostgres({
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
  return globalForLimiter.__chargeportApiLimiter;
}

export async function consumeApiRateLimit(apiKeyId: string): Promise<void> {
  try {
    await limiter().consume(apiKeyId);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new AppError('rate_limited', `Too many requests for this API key. Retry after ${retryAfter} s.`, {
        headers: { 'retry-after': String(retryAfter) },
      });
    }
    throw rejection;
  }
}

/** Tests change the limit between cases. */
export function resetApiRateLimiter(): void {
  globalForLimiter.__chargeportApiLimiter = undefined;
}

/** Windows that ended: the scheduler deletes them every 10 minutes. */
export async function deleteExpiredApiRateLimits(now = Date.now()): Promise<number> {
  const deleted = await getDb().delete(apiRateLimits).where(lt(apiRateLimits.expire, now)).returning({ key: apiRateLimits.key });
  return deleted.length;
}
