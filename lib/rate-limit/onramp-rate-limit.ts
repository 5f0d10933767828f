/**
 * Per-IP limits of the on-ramp's public endpoints, in PostgreSQL (shared by every instance): each order
 * writes a row and opens a session at a provider, and anyone may reach the page signed out.
 * ONRAMP_ORDERS_PER_IP orders per 10 minutes; quotes 10× that per minute.
 */
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible';
import { getDb } from '@/lib/db/client';
import { rateLimits } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { rateLimitKeyOfIp } from '@/lib/http/client-ip';

const globalForLimiters = globalThis as unknown as {
  __chargeportOnrampLimiters?: { orders: RateLimiterDrizzle; quotes: RateLimiterDrizzle };
};

function limiters() {
  const perIp = env().ONRAMP_ORDERS_PER_IP;
  globalForLimiters.__chargeportOnrampLimiters ??= {
    orders: new RateLimiterDrizzle({
      storeClient: getDb(),
      schema: rateLimits,
      keyPrefix: 'onramp-order',
      points: perIp,
      duration: 600,
      clearExpiredByTimeout: false,
    }),
    quotes: new RateLimiterDrizzle({
      storeClient: getDb(),
      schema: rateLimits,
      keyPrefix: 'onramp-quote',
      points: perIp * 10,
      duration: 60,
      clearExpiredByTimeout: false,
    }),
  };
  return globalForLimiters.__chargeportOnrampLimiters;
}

/** Throws AppError `rate_limited` (429) with the wait in `details.retryAfter` once the IP's budget is spent. */
export async function consumeOnrampRateLimit(kind: 'orders' | 'quotes', ip: string | null): Promise<void> {
  try {
    await limiters()[kind].consume(rateLimitKeyOfIp(ip));
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      const wait = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new AppError(
        'rate_limited',
        `Too many ${kind === 'orders' ? 'purchases started' : 'price requests'} from your network. Try again in ${wait < 60 ? `${wait} s` : `${Math.ceil(wait / 60)} min`}.`,
        { details: { retryAfter: String(wait) }, headers: { 'retry-after': String(wait) } },
      );
    }
    throw rejection;
  }
}

/** Tests change the limit between cases. */
export function resetOnrampRateLimiters(): void {
  globalForLimiters.__chargeportOnrampLimiters = undefined;
}
