/**
 * Rate limits of the sign-in and code endpoints, per IP and per e-mail address, in PostgreSQL (shared
 * by all instances): AUTH_RATE_LIMIT_PER_IP (default 30) requests per IP and 10 per address per 10 minutes.
 */
import { RateLimiterDrizzle, RateLimiterRes } from 'rate-limiter-flexible';
import { getDb } from '@/lib/db/client';
import { rateLimits } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { rateLimitKeyOfIp } from '@/lib/http/client-ip';

const globalForLimiters = globalThis as unknown as { __chargeportAuthLimiters?: { ip: RateLimiterDrizzle; address: RateLimiterDrizzle } };

function limiters() {
  globalForLimiters.__chargeportAuthLimiters ??= {
    ip: new RateLimiterDrizzle({
      storeClient: getDb(),
      schema: rateLimits,
      keyPrefix: 'auth-ip',
      points: env().AUTH_RATE_LIMIT_PER_IP,
      duration: 600,
      clearExpiredByTimeout: false,
    }),
    address: new RateLimiterDrizzle({
      storeClient: getDb(),
      schema: rateLimits,
      keyPrefix: 'auth-addr',
      points: 10,
      duration: 600,
      clearExpiredByTimeout: false,
    }),
  };
  return globalForLimiters.__chargeportAuthLimiters;
}

export async function consumeAuthRateLimit({ ip, address }: { ip: string; address?: string }): Promise<void> {
  try {
    await limiters().ip.consume(rateLimitKeyOfIp(ip));
    if (address) await limiters().address.consume(address);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      const wait = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new AppError('rate_limited', `Too many attempts. Try again in ${Math.ceil(wait / 60)} min.`, {
        headers: { 'retry-after': String(wait) },
      });
    }
    throw rejection;
  }
}

/**
 * A sign-in that succeeded: the address's count starts again and the IP gets back what the flow
 * spent, so an honest user signing out and in again is not throttled as if retrying.
 */
export async function forgiveAuthRateLimit({ ip, address }: { ip: string; address: string }): Promise<void> {
  await limiters().address.delete(address);
  await limiters().ip.reward(rateLimitKeyOfIp(ip), 2);
}
