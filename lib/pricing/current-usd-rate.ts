/**
 * Charges priced in US dollars (`chargeData.pricing: { currency: "USD", amount: "4.99" }`): the token
 * amount is computed once, at creation, from the token's USD rate, and the rate is recorded on the
 * charge (charges.pricing) and never recomputed — it is locked for the charge's lifetime.
 *
 *  - USD stablecoins (registry `usdPegged`) are at par: 1 token = 1 USD.
 *  - Other tokens: the last price of the feed in `usd_prices`, only while fresh (PRICE_MAX_AGE_MS, the
 *    same 15 minutes the checkout uses to show approximate values); otherwise there is no rate.
 *  - Exact arithmetic: cents and the rate's decimal text become integers; the division rounds UP to the
 *    token's smallest unit, so the merchant never receives less than the price.
 */
import { eq } from 'drizzle-orm';
import type { TokenInfo } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { usdPrices } from '@/lib/db/schema';
import { PRICE_MAX_AGE_MS } from './approximate-usd';

/** Digits kept of a rate's fraction: usd_prices.usd is numeric(38, 18). */
const RATE_SCALE_DIGITS = 18;
const RATE_PATTERN = /^(\d+)(?:\.(\d+))?$/;

export interface UsdRate {
  /** US dollars per whole token, shortest exact decimal text ("0.2345", "1"). */
  rate: string;
  source: 'par' | 'price_feed';
  /** When the rate was fetched; for par, `now`. */
  at: Date;
}

/** The token's USD rate usable now, or undefined when there is none fresh enough. */
export async function currentUsdRate(token: TokenInfo, options: { db?: DbOrTx; now?: Date } = {}): Promise<UsdRate | undefined> {
  const now = options.now ?? new Date();
  if (token.usdPegged) return { rate: '1', source: 'par', at: now };
  if (!token.priceId) return undefined;
  const [row] = await (options.db ?? getDb()).select().from(usdPrices).where(eq(usdPrices.priceId, token.priceId));
  if (!row || now.getTime() - row.fetchedAt.getTime() > PRICE_MAX_AGE_MS) return undefined;
  const rate = trimDecimal(row.usd);
  if (scaledRate(rate) === 0n) return undefined;
  return { rate, source: 'price_feed', at: row.fetchedAt };
}

/**
 * `cents` US cents in base units of a token with `decimals`, at `rate` USD per token, rounded up:
 * ceil(cents × 10^decimals × 10^18 / (100 × rate × 10^18)).
 */
export function usdCentsToBaseUnits(cents: bigint, rate: string, decimals: number): bigint {
  const scaled = scaledRate(rate);
  if (scaled <= 0n) throw new Error(`not a positive USD rate: ${rate}`);
  const numerator = cents * 10n ** BigInt(decimals + RATE_SCALE_DIGITS);
  const denominator = 100n * scaled;
  return (numerator + denominator - 1n) / denominator;
}

/** The rate as an integer scaled by 10^18 (extra fraction digits beyond 18 are refused). */
function scaledRate(rate: string): bigint {
  const match = RATE_PATTERN.exec(rate);
  if (!match || (match[2] ?? '').length > RATE_SCALE_DIGITS) throw new Error(`not a decimal USD rate: ${rate}`);
  return BigInt(match[1]! + (match[2] ?? '').padEnd(RATE_SCALE_DIGITS, '0'));
}

/** "0.234500000000000000" (numeric's text) → "0.2345"; "1.000" → "1". */
function trimDecimal(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
