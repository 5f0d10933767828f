/**
 * Sandpiper Pay's prices: a fixed price table (no market feed, so quotes are reproducible in tests),
 * fees by payment method with a minimum, and a small fixed network fee per chain.
 *
 * All arithmetic is on bigints: token amounts in base units, fiat in cents (every currency sold here
 * has two decimals), prices scaled by 10^8. The provider rounds in its own favour, to the cent.
 */
import { getChain, tokenHasSymbol, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { formatAmount, parseAmount } from '@/lib/money';
import type { SandboxPaymentMethod } from '@/lib/db/schema/sandbox-provider';
import { SandboxApiError } from './errors';

const PRICE_DECIMALS = 8;
const PRICE_SCALE = 10n ** BigInt(PRICE_DECIMALS);

/** USD per whole token, by symbol (test-network coins cost the same). */
const USD_PRICES: Readonly<Record<string, string>> = {
  USDC: '1.00',
  USDT: '1.00',
  POL: '0.25',
  BNB: '600.00',
  JEWEL: '0.05',
};

/** Units of the currency per US dollar. */
const FIAT_PER_USD: Readonly<Record<string, string>> = { USD: '1', EUR: '0.92', GBP: '0.79' };
export const SANDBOX_FIAT_CURRENCIES = Object.keys(FIAT_PER_USD);

/** Fee in basis points of the token price; wallets are cards underneath. */
const FEE_BPS: Readonly<Record<SandboxPaymentMethod, bigint>> = { card: 150n, apple_pay: 150n, google_pay: 150n, bank_transfer: 50n };
const MIN_FEE_CENTS = 99n;

/** Gas the provider passes on, in US cents. */
const NETWORK_FEE_USD_CENTS: Readonly<Partial<Record<ChainName, bigint>>> = {
  POLYGON: 1n,
  POLYGON_AMOY: 1n,
  BSC: 10n,
  BSC_TESTNET: 10n,
  DFK: 2n,
  DFK_TESTNET: 2n,
};

const QUOTE_LIFETIME_MS = 60_000;

export interface SandboxQuote {
  cryptoAmount: string;
  cryptoBaseUnits: bigint;
  fiatCurrency: string;
  rate: string;
  providerFee: string;
  networkFee: string;
  total: string;
  totalCents: bigint;
  expiresAt: Date;
}

/** The token Sandpiper Pay sells on this chain, or undefined: EVM chains only, priced tokens only. */
export function sellableToken(chain: ChainName, tokenSymbol: string): TokenInfo | undefined {
  const info = getChain(chain);
  if (info.family !== 'evm' || NETWORK_FEE_USD_CENTS[chain] === undefined) return undefined;
  const token = info.tokens.find((t) => tokenHasSymbol(t, tokenSymbol));
  return token && USD_PRICES[token.symbol] ? token : undefined;
}

function scaled(text: string): bigint {
  const parsed = parseAmount(text, PRICE_DECIMALS);
  if (!parsed.ok) throw new Error(`bad price table entry ${text}`);
  return parsed.baseUnits;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/** Cents as "12.50". */
function formatCents(cents: bigint): string {
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}

/** A scaled price as "1.00", "0.046", "474.00": at least two decimals, as prices are read. */
function formatRate(rate: bigint): string {
  const [whole, fraction = ''] = formatAmount(rate, PRICE_DECIMALS).split('.');
  return `${whole}.${fraction.padEnd(2, '0')}`;
}

interface PriceInputs {
  token: TokenInfo;
  /** Fiat per whole token, scaled by 10^8. */
  rate: bigint;
  feeBps: bigint;
  networkFeeCents: bigint;
}

function priceInputs(input: {
  chain: ChainName;
  tokenSymbol: string;
  fiatCurrency: string;
  paymentMethod: SandboxPaymentMethod;
}): PriceInputs {
  const token = sellableToken(input.chain, input.tokenSymbol);
  if (!token)
    throw new SandboxApiError('unsupported_asset', `Sandpiper Pay does not sell ${input.tokenSymbol} on ${input.chain}.`, 'tokenSymbol');
  const fx = FIAT_PER_USD[input.fiatCurrency];
  if (!fx) {
    throw new SandboxApiError(
      'unsupported_currency',
      `Sandpiper Pay takes ${SANDBOX_FIAT_CURRENCIES.join(', ')}, not ${input.fiatCurrency}.`,
      'fiatCurrency',
    );
  }
  const fxScaled = scaled(fx);
  return {
    token,
    rate: (scaled(USD_PRICES[token.symbol]!) * fxScaled) / PRICE_SCALE,
    feeBps: FEE_BPS[input.paymentMethod],
    networkFeeCents: ceilDiv(NETWORK_FEE_USD_CENTS[input.chain]! * fxScaled, PRICE_SCALE),
  };
}

function providerFeeCents(subtotalCents: bigint, feeBps: bigint): bigint {
  const fee = ceilDiv(subtotalCents * feeBps, 10_000n);
  return fee > MIN_FEE_CENTS ? fee : MIN_FEE_CENTS;
}

function buildQuote(inputs: PriceInputs, cryptoBaseUnits: bigint, fiatCurrency: string, now: Date): SandboxQuote {
  const { token, rate, feeBps, networkFeeCents } = inputs;
  const subtotalCents = ceilDiv(cryptoBaseUnits * rate * 100n, 10n ** BigInt(token.decimals) * PRICE_SCALE);
  const feeCents = providerFeeCents(subtotalCents, feeBps);
  const totalCents = subtotalCents + feeCents + networkFeeCents;
  return {
    cryptoAmount: formatAmount(cryptoBaseUnits, token.decimals),
    cryptoBaseUnits,
    fiatCurrency,
    rate: formatRate(rate),
    providerFee: formatCents(feeCents),
    networkFee: formatCents(networkFeeCents),
    total: formatCents(totalCents),
    totalCents,
    expiresAt: new Date(now.getTime() + QUOTE_LIFETIME_MS),
  };
}

/** The price of receiving exactly `cryptoAmount`. */
export function quoteForCrypto(input: {
  chain: ChainName;
  tokenSymbol: string;
  cryptoAmount: string;
  fiatCurrency: string;
  paymentMethod: SandboxPaymentMethod;
  now: Date;
}): SandboxQuote {
  const inputs = priceInputs(input);
  const parsed = parseAmount(input.cryptoAmount, inputs.token.decimals);
  if (!parsed.ok) {
    throw new SandboxApiError(
      'invalid_request',
      `cryptoAmount must be a positive amount with at most ${inputs.token.decimals} decimals.`,
      'cryptoAmount',
    );
  }
  return buildQuote(inputs, parsed.baseUnits, input.fiatCurrency, input.now);
}

/** The most tokens `fiatAmount` buys, fees included; the quote's total never exceeds `fiatAmount`. */
export function quoteForFiat(input: {
  chain: ChainName;
  tokenSymbol: string;
  fiatAmount: string;
  fiatCurrency: string;
  paymentMethod: SandboxPaymentMethod;
  now: Date;
}): SandboxQuote {
  const inputs = priceInputs(input);
  const parsed = parseAmount(input.fiatAmount, 2);
  if (!parsed.ok)
    throw new SandboxApiError('invalid_request', 'fiatAmount must be a positive amount with at most 2 decimals.', 'fiatAmount');
  const available = parsed.baseUnits - inputs.networkFeeCents;
  // Largest subtotal whose fee still fits: proportional fee first, the minimum fee when that is larger.
  let subtotal = (available * 10_000n) / (10_000n + inputs.feeBps);
  if (subtotal + providerFeeCents(subtotal, inputs.feeBps) > available) subtotal = available - MIN_FEE_CENTS;
  const cryptoBaseUnits = subtotal > 0n ? (subtotal * 10n ** BigInt(inputs.token.decimals) * PRICE_SCALE) / (inputs.rate * 100n) : 0n;
  if (cryptoBaseUnits <= 0n) {
    throw new SandboxApiError('amount_too_small', `${input.fiatAmount} ${input.fiatCurrency} does not cover the fees.`, 'fiatAmount');
  }
  return buildQuote(inputs, cryptoBaseUnits, input.fiatCurrency, input.now);
}
