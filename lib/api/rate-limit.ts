/**
 * Per-API-key rate limit, with rate-limiter-flexible's PostgreSQL (drizzle) store so the budget is
 * shared by every app instance on the database. A fixed one-minute window of
 * API_RATE_LIMIT_PER_MINUTE requests; over it → 429 rate_limited with Retry-After.
 */
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible';
import { getDb } from '@/lib/db/client';
import { rateLimits } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';

const globalForLimiter = globalThis as unknown as { __chargeportApiLimiter?: RateLimiterDrizzle };

function limiter(): RateLimiterDrizzle {
  globalForLimiter.__chargeportApiLimiter ??= new RateLimiterDrizzle({
    storeClient: getDb(),
    schema: rateLimits,
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
