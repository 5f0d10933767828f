/**
 * Publishable keys are public, so their per-key budget (rate-limit.ts) could be spent by anyone who
 * copies one. Each client IP therefore also gets PUBLISHABLE_KEY_RATE_LIMIT_PER_IP requests per minute
 * per publishable key; over it → 429 rate_limited with Retry-After. The IP is the one lib/http/client-ip.ts
 * decides (forwarded headers only as configured), so a client cannot pick a fresh one per request.
 */
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible';
import { getDb } from '@/lib/db/client';
import { rateLimits } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { rateLimitKeyOfIp } from '@/lib/http/client-ip';

const globalForLimiter = globalThis as unknown as { __chargeportPublishableIpLimiter?: RateLimiterDrizzle };

function limiter(): RateLimiterDrizzle {
  globalForLimiter.__chargeportPublishableIpLimiter ??= new RateLimiterDrizzle({
    storeClient: getDb(),
    schema: rateLimits,
    keyPrefix: 'pub-ip',
    points: env().PUBLISHABLE_KEY_RATE_LIMIT_PER_IP,
    duration: 60,
    clearExpiredByTimeout: false,
  });
  return globalForLimiter.__chargeportPublishableIpLimiter;
}

/** Tests change the limit between cases. */
export function resetPublishableIpLimiter(): void {
  globalForLimiter.__chargeportPublishableIpLimiter = undefined;
}

export async function consumePublishableIpLimit(apiKeyId: string, ip: string | null): Promise<void> {
  try {
    await limiter().consume(`${apiKeyId}:${rateLimitKeyOfIp(ip)}`);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const wait = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    throw new AppError('rate_limited', `Too many requests with this publishable key from your address. Retry after ${wait} s.`, {
      headers: { 'retry-after': String(wait) },
    });
  }
}
