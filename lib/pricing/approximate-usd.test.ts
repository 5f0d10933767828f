import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { usdPrices } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { log } from '@/lib/log';
import {
  approximateUsd,
  formatUsd,
  multiplyToCents,
  plainDecimal,
  pricedTokenIds,
  PRICE_MAX_AGE_MS,
  PRICE_REFRESH_EVERY_MS,
  refreshUsdPrices,
} from './approximate-usd';

const POL = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'POL')!;
const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
let feed: Server;
let feedBody = '';
let feedStatus = 200;
let lastQuery: URLSearchParams | undefined;
let requests = 0;

beforeAll(async () => {
  // A loopback server answering exactly as CoinGecko's /simple/price does (raw JSON numbers).
  feed = createServer((req, res) => {
    requests += 1;
    lastQuery = new URL(req.url!, 'http://feed').searchParams;
    res.writeHead(feedStatus, { 'content-type': 'application/json' }).end(feedBody);
  });
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve));
  process.env.PRICE_FEED_URL = `http://127.0.0.1:${(feed.address() as AddressInfo).port}/api/v3`;
  resetEnvCache();
});

afterAll(async () => {
  delete process.env.PRICE_FEED_URL;
  resetEnvCache();
  await new Promise((resolve) => feed.close(resolve));
});

describe('approximate USD values', () => {
  it('multiplies exactly and rounds half-up to cents', () => {
    expect(multiplyToCents(1_500_000_000_000_000_000n, 18, '0.2345')).toBe('0.35'); // 0.35175
    expect(multiplyToCents(4_990_000n, 6, '1')).toBe('4.99');
    expect(multiplyToCents(5n, 3, '1')).toBe('0.01'); // 0.005 rounds up
    expect(multiplyToCents(4n, 3, '1')).toBe('0.00');
    expect(multiplyToCents(123_456_789_000_000_000_000_000n, 18, '612.37')).toBe('75601233.88');
    // Floats would lose this: 0.1 + 0.2 style errors never enter.
    expect(multiplyToCents(3n * 10n ** 17n, 18, '0.1')).toBe('0.03');
    expect(formatUsd('75601233.88')).toBe('$75,601,233.88');
  });

  it("reads the feed's numbers as exact decimals, scientific notation included", () => {
    expect(plainDecimal('4.2e-05')).toBe('0.000042');
    expect(plainDecimal('1.5E3')).toBe('1500');
    expect(plainDecimal('0.2345')).toBe('0.2345');
    expect(plainDecimal('612')).toBe('612');
    expect(plainDecimal('-1')).toBeUndefined();
    expect(plainDecimal(undefined)).toBeUndefined();
  });

  it('stablecoins are worth their amount with no feed at all', async () => {
    expect(await approximateUsd(USDC, 4_990_000n)).toBe('4.99');
  });

  it("stores the feed's prices and shows them while fresh; a failing feed keeps the last ones, which then age out", async () => {
    feedBody =
      '{"polygon-ecosystem-token":{"usd":0.2345},"binancecoin":{"usd":612.37},"solana":{"usd":1.5E2},"defi-kingdoms":{"usd":4.2e-05}}';
    expect(await refreshUsdPrices()).toBe(4);
    expect(lastQuery?.get('ids')?.split(',')).toEqual(pricedTokenIds());
    expect(lastQuery?.get('vs_currencies')).toBe('usd');
    const [row] = await getDb().select().from(usdPrices).where(eq(usdPrices.priceId, 'defi-kingdoms'));
    expect(Number(row!.usd)).toBe(0.000042);
    expect(await approximateUsd(POL, 1_500_000_000_000_000_000n)).toBe('0.35');

    feedStatus = 503;
    const warn = vi.spyOn(log, 'warn');
    const start = Date.now();
    expect(await refreshUsdPrices(fetch, start)).toBe(0);
    expect(await approximateUsd(POL, 10n ** 18n)).toBe('0.23');
    const later = new Date(Date.now() + PRICE_MAX_AGE_MS + 1000);
    expect(await approximateUsd(POL, 10n ** 18n, later)).toBeUndefined();
    feedStatus = 200;
    warn.mockRestore();
  });

  it('an unreachable feed warns once per outage and backs off (5, 10, 20 … minutes), then recovers', async () => {
    const warn = vi.spyOn(log, 'warn');
    const minute = 60_000;
    let t = Date.now() + 24 * 3600_000; // past the previous test's outage
    feedStatus = 200;
    feedBody = '{"solana":{"usd":150}}';
    expect(await refreshUsdPrices(fetch, t)).toBe(1);
    feedStatus = 503;
    const attemptsAt = async (minutes: number[]) => {
      const seen: number[] = [];
      for (const m of minutes) {
        const before = requests;
        await refreshUsdPrices(fetch, t + m * minute);
        if (requests > before) seen.push(m);
      }
      return seen;
    };
    // The scheduler ticks every 5 minutes; the feed is asked at 0, 5, 15 (5 + 10), 35 (+ 20), 75 (+ 40).
    expect(await attemptsAt([0, 5, 10, 15, 20, 25, 30, 35, 40, 70, 75])).toEqual([0, 5, 15, 35, 75]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(/price feed unreachable/);
    feedStatus = 200;
    t += 75 * minute + PRICE_REFRESH_EVERY_MS * 16; // the next attempt after the 60-minute cap
    expect(await refreshUsdPrices(fetch, t)).toBe(1);
    // Recovered: the next outage is reported again, and retried at the scheduler's own pace.
    feedStatus = 503;
    expect(await attemptsAt([5, 10])).toEqual([5, 10]);
    expect(warn).toHaveBeenCalledTimes(2);
    feedStatus = 200;
    warn.mockRestore();
  });
});
