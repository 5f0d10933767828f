/**
 * Approximate USD values, shown next to token amounts (checkout, on-ramp). Informative only: the charge
 * is always for its exact token amount.
 *
 *  - USD stablecoins (registry `usdPegged`) are worth their amount.
 *  - Other tokens use the last price from the feed (PRICE_FEED_URL, CoinGecko's simple-price API),
 *    refreshed in the background into `usd_prices`; a price older than 15 minutes is not shown.
 *  - Arithmetic is exact: the feed's decimal text is scaled to an integer, never a float.
 *  - An unreachable feed (offline, a dev machine) is one warning per outage, and the refresh backs off
 *    (5, 10, 20, 40, then every 60 minutes) until it answers again.
 */
import { inArray, sql } from 'drizzle-orm';
import { parse } from 'lossless-json';
import { CHAINS, CHAIN_NAMES, type TokenInfo } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { usdPrices } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { log } from '@/lib/log';

export const PRICE_MAX_AGE_MS = 15 * 60_000;
const PRICE_SCALE_DIGITS = 18;
const FEED_TIMEOUT_MS = 5_000;
/** The scheduler's interval for the refresh (lib/jobs/scheduler.ts), the first back-off step. */
export const PRICE_REFRESH_EVERY_MS = 5 * 60_000;
const BACKOFF_MAX_MS = 60 * 60_000;
/** A tick that comes a little early still counts as the back-off having passed. */
const BACKOFF_SLACK_MS = 30_000;

/** The feed's current outage, in this process: how many attempts failed, and when to try again. */
const outage = { failedAttempts: 0, nextAttemptAt: 0 };

/** amount × price, rounded half-up to cents, as "1234.56". */
export function multiplyToCents(baseUnits: bigint, decimals: number, usdPrice: string): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(usdPrice);
  if (!match) throw new Error(`not a decimal price: ${usdPrice}`);
  const fraction = (match[2] ?? '').slice(0, PRICE_SCALE_DIGITS).padEnd(PRICE_SCALE_DIGITS, '0');
  const scaledPrice = BigInt(match[1]! + fraction);
  // cents = baseUnits × price × 100 / 10^decimals, with price = scaledPrice / 10^18.
  const numerator = baseUnits * scaledPrice * 100n;
  const denominator = 10n ** BigInt(decimals + PRICE_SCALE_DIGITS);
  const cents = (numerator * 2n + denominator) / (denominator * 2n);
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/** "≈ $1,234.56" for display. */
export function formatUsd(amount: string): string {
  const [whole, cents] = amount.split('.');
  return `$${BigInt(whole!).toLocaleString('en-US')}.${cents}`;
}

/** USD per whole token: 1 for stablecoins, else the feed's fresh price; undefined when unknown. */
export async function usdRate(token: TokenInfo, now = new Date()): Promise<string | undefined> {
  if (token.usdPegged) return '1';
  if (!token.priceId) return undefined;
  const [row] = await getDb()
    .select()
    .from(usdPrices)
    .where(inArray(usdPrices.priceId, [token.priceId]));
  if (!row || now.getTime() - row.fetchedAt.getTime() > PRICE_MAX_AGE_MS) return undefined;
  return row.usd;
}

/** The approximate USD value of an amount of a token, or undefined when there is no fresh price. */
export async function approximateUsd(token: TokenInfo, baseUnits: bigint, now = new Date()): Promise<string | undefined> {
  const rate = await usdRate(token, now);
  return rate === undefined ? undefined : multiplyToCents(baseUnits, token.decimals, rate);
}

/** Every price id the registry uses. */
export function pricedTokenIds(): string[] {
  return [
    ...new Set(CHAIN_NAMES.flatMap((chain) => CHAINS[chain].tokens.flatMap((t) => (t.priceId && !t.usdPegged ? [t.priceId] : [])))),
  ].sort();
}

/**
 * Background job: fetch the feed's USD prices and store them. Returns how many were stored; a feed
 * failure keeps the previous prices (which age out of display after 15 minutes), warns once per outage
 * and backs off.
 */
export async function refreshUsdPrices(fetchImpl: typeof fetch = fetch, now = Date.now()): Promise<number> {
  const feed = env().PRICE_FEED_URL;
  if (!feed || now < outage.nextAttemptAt) return 0;
  let body: Record<string, { usd?: string }>;
  try {
    body = await fetchFeed(feed, fetchImpl);
  } catch (error) {
    outage.failedAttempts += 1;
    const waitMs = Math.min(PRICE_REFRESH_EVERY_MS * 2 ** (outage.failedAttempts - 1), BACKOFF_MAX_MS);
    outage.nextAttemptAt = now + waitMs - BACKOFF_SLACK_MS;
    if (outage.failedAttempts === 1)
      log.warn('price feed unreachable: non-stablecoin USD values are hidden until it answers; retrying with back-off', {
        feed: new URL(feed).host,
        error,
      });
    return 0;
  }
  if (outage.failedAttempts) log.info('price feed answers again', { failedAttempts: outage.failedAttempts });
  outage.failedAttempts = 0;
  outage.nextAttemptAt = 0;
  return storePrices(body);
}

async function fetchFeed(feed: string, fetchImpl: typeof fetch): Promise<Record<string, { usd?: string }>> {
  const url = new URL(`${feed.replace(/\/$/, '')}/simple/price`);
  url.searchParams.set('ids', pricedTokenIds().join(','));
  url.searchParams.set('vs_currencies', 'usd');
  const response = await fetchImpl(url, { signal: AbortSignal.timeout(FEED_TIMEOUT_MS), headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`price feed answered ${response.status}`);
  // lossless-json keeps each price's decimal text exactly as sent.
  return parse(await response.text(), undefined, (value) => String(value)) as Record<string, { usd?: string }>;
}

async function storePrices(body: Record<string, { usd?: string }>): Promise<number> {
  const ids = pricedTokenIds();
  const fetchedAt = new Date();
  const rows = ids.flatMap((priceId) => {
    const usd = plainDecimal(body[priceId]?.usd);
    return usd ? [{ priceId, usd, fetchedAt }] : [];
  });
  if (!rows.length) return 0;
  await getDb()
    .insert(usdPrices)
    .values(rows)
    .onConflictDoUpdate({ target: usdPrices.priceId, set: { usd: sql`excluded.usd`, fetchedAt } });
  return rows.length;
}

/** A JSON number's text as a plain non-negative decimal ("4.2e-05" → "0.000042"), or undefined. */
export function plainDecimal(text: string | undefined): string | undefined {
  const match = text && /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return undefined;
  const digits = match[1]! + (match[2] ?? '');
  const point = match[1]!.length + Number(match[3] ?? 0);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`.replace(/\.?0+$/, '') || '0';
  if (point >= digits.length) return digits.padEnd(point, '0').replace(/^0+(?=\d)/, '');
  return `${digits.slice(0, point).replace(/^0+(?=\d)/, '')}.${digits.slice(point)}`.replace(/\.?0+$/, '');
}
