import { describe, expect, it } from 'vitest';
import { randomBase62 } from '@/lib/ids';
import { consumeAuthRateLimit, forgiveAuthRateLimit } from './auth-rate-limit';

describe('sign-in and code rate limits', () => {
  it('allow 10 requests per address per 10 minutes, then refuse with a wait', async () => {
    const address = `limit-${randomBase62(8)}@example.test`;
    const ip = `198.51.100.${Math.floor(Math.random() * 250)}-${randomBase62(4)}`;
    for (let i = 0; i < 10; i++) await consumeAuthRateLimit({ ip, address });
    await expect(consumeAuthRateLimit({ ip, address })).rejects.toMatchObject({
      code: 'rate_limited',
      headers: { 'retry-after': expect.any(String) },
    });
    // Another address from the same IP still passes (the IP budget is larger).
    await expect(consumeAuthRateLimit({ ip, address: `other-${address}` })).resolves.toBeUndefined();
  });

  it('allow AUTH_RATE_LIMIT_PER_IP (30) requests per IP, whatever the addresses', async () => {
    const ip = `203.0.113.${randomBase62(6)}`;
    for (let i = 0; i < 30; i++) await consumeAuthRateLimit({ ip, address: `a${i}-${randomBase62(6)}@example.test` });
    await expect(consumeAuthRateLimit({ ip, address: `late-${randomBase62(6)}@example.test` })).rejects.toMatchObject({
      code: 'rate_limited',
    });
  });

  it('a successful sign-in starts the address count again: signing out and in five times in a row is never throttled', async () => {
    const address = `honest-${randomBase62(8)}@example.test`;
    const ip = `192.0.2.${randomBase62(6)}`;
    for (let round = 0; round < 8; round++) {
      // One sign-in: ask for a code, then enter it.
      await consumeAuthRateLimit({ ip, address });
      await consumeAuthRateLimit({ ip, address });
      await forgiveAuthRateLimit({ ip, address });
    }
    // Without the forgiveness the address would have been refused after the 5th round.
    await expect(consumeAuthRateLimit({ ip, address })).resolves.toBeUndefined();
  });
});
