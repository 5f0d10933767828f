import { eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { apiRateLimits } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { newId } from '@/lib/ids';
import { consumeApiRateLimit, deleteExpiredApiRateLimits, resetApiRateLimiter } from './rate-limit';

afterEach(() => {
  delete process.env.API_RATE_LIMIT_PER_MINUTE;
  resetEnvCache();
  resetApiRateLimiter();
});

describe('per-key API rate limit (RateLimiterPostgres over postgres.js)', () => {
  it('counts each request in api_rate_limits for a one-minute window', async () => {
    const keyId = newId('apiKey');
    const before = Date.now();
    await consumeApiRateLimit(keyId);
    await consumeApiRateLimit(keyId);
    const [row] = await getDb().select().from(apiRateLimits).where(eq(apiRateLimits.key, `api:${keyId}`));
    expect(row!.points).toBe(2);
    expect(row!.expire!).toBeGreaterThanOrEqual(before + 60_000);
    expect(row!.expire!).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('refuses past the budget with rate_limited and a Retry-After within the window', async () => {
    process.env.API_RATE_LIMIT_PER_MINUTE = '3';
    resetEnvCache();
    resetApiRateLimiter();
    const keyId = newId('apiKey');
    for (let i = 0; i < 3; i++) await consumeApiRateLimit(keyId);
    const refused = await consumeApiRateLimit(keyId).then(() => undefined, (error: unknown) => error as { code: string; headers: Record<string, string> });
    expect(refused?.code).toBe('rate_limited');
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused?.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('starts a new window once the old one has ended', async () => {
    process.env.API_RATE_LIMIT_PER_MINUTE = '1';
    resetEnvCache();
    resetApiRateLimiter();
    const keyId = newId('apiKey');
    await getDb().insert(apiRateLimits).values({ key: `api:${keyId}`, points: 1, expire: Date.now() - 1 });
    await consumeApiRateLimit(keyId); // the ended window does not count
    await expect(consumeApiRateLimit(keyId)).rejects.toMatchObject({ code: 'rate_limited' });
  });

  it('keeps its counters in an UNLOGGED table (no WAL flush per API call); money tables stay logged', async () => {
    const rows = await getDb().execute<{ relname: string; relpersistence: string }>(
      sql`select relname, relpersistence from pg_class where relname in ('api_rate_limits', 'rate_limits', 'charges') and relkind = 'r'`,
    );
    expect(Object.fromEntries(rows.map((row) => [row.relname, row.relpersistence]))).toEqual({ api_rate_limits: 'u', rate_limits: 'p', charges: 'p' });
  });

  it('shares one exact budget between parallel requests', async () => {
    process.env.API_RATE_LIMIT_PER_MINUTE = '10';
    resetEnvCache();
    resetApiRateLimiter();
    const keyId = newId('apiKey');
    const outcomes = await Promise.allSettled(Array.from({ length: 25 }, () => consumeApiRateLimit(keyId)));
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(10);
  });

  it('the clean-up deletes ended windows only', async () => {
    const [ended, open] = [`api:${newId('apiKey')}`, `api:${newId('apiKey')}`];
    await getDb().insert(apiRateLimits).values([
      { key: ended, points: 5, expire: Date.now() - 1_000 },
      { key: open, points: 5, expire: Date.now() + 60_000 },
    ]);
    expect(await deleteExpiredApiRateLimits()).toBeGreaterThanOrEqual(1);
    expect(await getDb().select().from(apiRateLimits).where(eq(apiRateLimits.key, ended))).toEqual([]);
    expect(await getDb().select().from(apiRateLimits).where(eq(apiRateLimits.key, open))).toHaveLength(1);
  });
});
