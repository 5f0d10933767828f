/**
 * Per-IP limit of the public refund claim page and its claim (in PostgreSQL, shared by every instance):
 * the token is the capability and too long to guess, but anyone may reach the page signed out.
 * 30 looks or claims per 10 minutes per client.
 */
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible';
import { getDb } from '@/lib/db/client';
import { rateLimits } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

const CLAIM_LOOKUPS_PER_IP = 30;

const globalForLimiter = globalThis as unknown as { __chargeportRefundClaimLimiter?: RateLimiterDrizzle };

/** Throws AppError `rate_limited` (429) once the IP's budget is spent. */
export async function consumeRefundClaimLimit(ip: string | null): Promise<void> {
  globalForLimiter.__chargeportRefundClaimLimiter ??= new RateLimiterDrizzle({
    storeClient: getDb(),
    schema: rateLimits,
    keyPrefix: 'refund-claim',
    points: CLAIM_LOOKUPS_PER_IP,
    duration: 600,
    clearExpiredByTimeout: false,
  });
  try {
    await globalForLimiter.__chargeportRefundClaimLimiter.consume(ip ?? 'unknown');
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      const wait = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new AppError('rate_limited', `Too many tries from your network. Try again in ${Math.ceil(wait / 60)} min.`, {
        details: { retryAfter: String(wait) },
        headers: { 'retry-after': String(wait) },
      });
    }
    throw rejection;
  }
}
