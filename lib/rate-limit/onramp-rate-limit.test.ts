import { afterEach, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { isAppError } from '@/lib/errors';
import { consumeOnrampRateLimit, resetOnrampRateLimiters } from './onramp-rate-limit';

afterEach(() => {
  delete process.env.ONRAMP_ORDERS_PER_IP;
  resetEnvCache();
  resetOnrampRateLimiters();
});

describe('on-ramp rate limits per client IP', () => {
  it('refuses the order after the budget, with the wait, and counts each IP on its own', async () => {
    process.env.ONRAMP_ORDERS_PER_IP = '2';
    resetEnvCache();
    resetOnrampRateLimiters();
    const ip = `198.51.100.${Math.floor(Math.random() * 250)}`;
    await consumeOnrampRateLimit('orders', ip);
    await consumeOnrampRateLimit('orders', ip);
    const error = await consumeOnrampRateLimit('orders', ip).catch((e: unknown) => e);
    expect(isAppError(error) && error.code).toBe('rate_limited');
    expect(isAppError(error) && error.status).toBe(429);
    expect(Number(isAppError(error) && error.details?.retryAfter)).toBeGreaterThan(0);
    await expect(consumeOnrampRateLimit('orders', `203.0.113.${Math.floor(Math.random() * 250)}`)).resolves.toBeUndefined();
    // Quotes have their own, larger budget.
    await expect(consumeOnrampRateLimit('quotes', ip)).resolves.toBeUndefined();
  });
});
