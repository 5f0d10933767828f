import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/lib/db/client';
import { apiRateLimits } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { newId } from '@/lib/ids';
import { consumeApiRateLimit, createApiLimiterState, deleteExpiredApiRateLimits, resetApiRateLimiter } from './api-rate-limit';

/** A budget for the next requests, with a fresh limiter for this process. */
function setLimitPerMinute(points: number): void {
  process.env.API_RATE_LIMIT_PER_MINUTE = String(points);
  resetEnvCache();
  resetApiRateLimiter();
}

afterEach(() => {
  vi.useRealTimers();
  delete process.env.API_RATE_LIMIT_PER_MINUTE;
  resetEnvCache();
  resetApiRateLimiter();
});

describe('per-key API rate limit (RateLimiterPostgres over postgres.js)', () => {
  it('counts each request in api_rate_limits for a one-minute window (a small budget: no leases)', async () => {
    setLimitPerMinute(100);
    const keyId = newId('apiKey');
    const before = Date.now();
    await consumeApiRateLimit(keyId);
    await consumeApiRateLimit(keyId);
    const [row] = await getDb()
      .select()
      .from(apiRateLimits)
      .where(eq(apiRateLimits.key, `api:${keyId}`));
    expect(row!.points).toBe(2);
    expect(row!.expire!).toBeGreaterThanOrEqual(before + 60_000);
    expect(row!.expire!).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('refuses past the budget with rate_limited and a Retry-After within the window', async () => {
    setLimitPerMinute(3);
    const keyId = newId('apiKey');
    for (let i = 0; i < 3; i++) await consumeApiRateLimit(keyId);
    const refused = await consumeApiRateLimit(keyId).then(
      () => undefined,
      (error: unknown) => error as { code: string; headers: Record<string, string> },
    );
    expect(refused?.code).toBe('rate_limited');
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused?.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('starts a new window once the old one has ended', async () => {
    setLimitPerMinute(1);
    const keyId = newId('apiKey');
    await getDb()
      .insert(apiRateLimits)
      .values({ key: `api:${keyId}`, points: 1, expire: Date.now() - 1 });
    await consumeApiRateLimit(keyId); // the ended window does not count
    await expect(consumeApiRateLimit(keyId)).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('keeps its counters in an UNLOGGED table (no WAL flush per API call); money tables stay logged', async () => {
    const rows = await getDb().execute<{ relname: string; relpersistence: string }>(
      sql`select relname, relpersistence from pg_class where relname in ('api_rate_limits', 'rate_limits', 'charges') and relkind = 'r'`,
    );
    expect(Object.fromEntries(rows.map((row) => [row.relname, row.relpersistence]))).toEqual({
      api_rate_limits: 'u',
      rate_limits: 'p',
      charges: 'p',
    });
  });

  it('shares one exact budget between parallel requests', async () => {
    setLimitPerMinute(10);
    const keyId = newId('apiKey');
    const outcomes = await Promise.allSettled(Array.from({ length: 25 }, () => consumeApiRateLimit(keyId)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(10);
  });

  it('a key with room takes a lease of points in one upsert and spends it locally; each window starts afresh', async () => {
    setLimitPerMinute(6400); // lease = min(16, 6400 / 64)
    const keyId = newId('apiKey');
    const stored = async () =>
      (
        await getDb()
          .select()
          .from(apiRateLimits)
          .where(eq(apiRateLimits.key, `api:${keyId}`))
      )[0]!.points;
    await consumeApiRateLimit(keyId);
    expect(await stored()).toBe(16);
    for (let i = 0; i < 15; i++) await consumeApiRateLimit(keyId);
    expect(await stored()).toBe(16); // served from the lease
    await consumeApiRateLimit(keyId);
    expect(await stored()).toBe(32);
    // The lease ends with its window: the next request opens a new window in PostgreSQL.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    await consumeApiRateLimit(keyId);
    expect(await stored()).toBe(16);
  });

  it('leases never let instances together exceed the budget', async () => {
    setLimitPerMinute(640); // leases of 10, then smaller as the budget runs down
    const keyId = newId('apiKey');
    const instances = [createApiLimiterState(), createApiLimiterState(), createApiLimiterState()];
    const outcomes = await Promise.allSettled(
      instances.flatMap((instance) => Array.from({ length: 300 }, () => consumeApiRateLimit(keyId, instance))),
    );
    const served = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
    expect(served).toBeLessThanOrEqual(640);
    // Points taken but not spent by an instance are bounded by its last lease (at most 640 / 64 each).
    expect(served).toBeGreaterThanOrEqual(640 - 3 * 10);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'rate_limited' });
  });

  it('reports the budget for the RateLimit headers without a round trip: exact on one instance, within a lease on two', async () => {
    setLimitPerMinute(640); // leases of 10
    const keyId = newId('apiKey');
    const [a, b] = [createApiLimiterState(), createApiLimiterState()];
    const first = await consumeApiRateLimit(keyId, a);
    expect(first).toMatchObject({ limit: 640, remaining: 639 });
    expect(first.resetSeconds).toBeGreaterThan(0);
    expect(first.resetSeconds).toBeLessThanOrEqual(60);
    expect((await consumeApiRateLimit(keyId, a)).remaining).toBe(638); // spent from the lease
    // Instance b takes its own lease: a's unspent points are already gone from the shared budget.
    const fromB = await consumeApiRateLimit(keyId, b);
    expect(fromB.remaining).toBe(640 - 10 - 10 + 9);
    for (const status of [fromB, await consumeApiRateLimit(keyId, a)]) {
      // Four requests made: each view is within one lease of that.
      expect(Math.abs(status.remaining - (640 - 4))).toBeLessThanOrEqual(10);
    }
  });

  it('the clean-up deletes ended windows only', async () => {
    const [ended, open] = [`api:${newId('apiKey')}`, `api:${newId('apiKey')}`];
    await getDb()
      .insert(apiRateLimits)
      .values([
        { key: ended, points: 5, expire: Date.now() - 1_000 },
        { key: open, points: 5, expire: Date.now() + 60_000 },
      ]);
    expect(await deleteExpiredApiRateLimits()).toBeGreaterThanOrEqual(1);
    expect(await getDb().select().from(apiRateLimits).where(eq(apiRateLimits.key, ended))).toEqual([]);
    expect(await getDb().select().from(apiRateLimits).where(eq(apiRateLimits.key, open))).toHaveLength(1);
  });
});
