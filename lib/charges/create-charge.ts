/**
 * createCharge — the spec's "Create charge" with every rule in one place:
 *
 *  - mode follows the key: a test key makes test charges only, a production key live charges only;
 *    isTest: true with a production key → test_key_required, isTest: false with a test key → live_key_required.
 *  - chain must be in the registry; a test charge runs on the chain's test network (POLYGON → POLYGON_AMOY)
 *    and only with its native token (spec: "test charges interact only with native tokens").
 *  - that network must be served here (an RPC URL, so its watcher runs): else chain_not_configured, in every
 *    mode — a charge nothing watches would ask the payer for money that is never seen.
 *  - symbol + tokenAddress must name one token known on that chain.
 *  - amounts are exact decimals with at most the token's decimals; total = Σ amount × quantity;
 *    `amount` alone when there are no items; both → they must be equal.
 *  - or `pricing` in US dollars (never with `amount`): converted at the token's current rate (stablecoins
 *    at par), rounded up to the token's smallest unit, the rate recorded and locked; with items, their amounts
 *    are USD unit prices adding up to pricing.amount. No fresh rate → price_unavailable (price-charge-in-usd.ts).
 *  - isDirectTransfer needs toAddress, a production key and a verified merchant.
 *  - toAddress without isDirectTransfer: deliver-to-wallet charge (tokens end at toAddress).
 *  - publishable keys may not route funds elsewhere (no toAddress, no direct transfer), and may send
 *    buyers back only to the key's allowed redirect origins (none by default → redirect_not_allowed).
 *  - open (pending) charges created with publishable keys are capped per merchant and mode
 *    (MAX_OPEN_PUBLISHABLE_CHARGES_PER_MERCHANT) → open_charge_limit: a leaked browser key cannot fill the
 *    tables. Secret-key charges have no open cap (they are rate-limited per key, API_RATE_LIMIT_PER_MINUTE),
 *    so a popular game never meets one; neither path counts charges (a trigger-kept counter, ADR 0019).
 *  - the charge belongs to the key's merchant; nothing from the body decides ownership.
 */
import { getDb } from '@/lib/db/client';
import type { ChargeDestination, ChargeRow, StoredChargeItem } from '@/lib/db/schema';
import {
  CHAIN_NAMES,
  CHAINS,
  findToken,
  isChainName,
  isValidAddress,
  nativeToken,
  normalizeAddress,
  tokenHasSymbol,
  type ChainInfo,
  type TokenInfo,
} from '@/lib/chains/registry';
import { chainNotServedReason, isChainServed } from '@/lib/chains/served';
import type { ApiContext } from '@/lib/context';
import { env } from '@/lib/env';
import { AppError, isAppError } from '@/lib/errors';
import { metrics } from '@/lib/metrics/metrics';
import { newId } from '@/lib/ids';
import { MAX_BASE_UNITS, formatAmount, parseAmount, sumLineTotals, type ParseAmountResult } from '@/lib/money';
import type { CreateChargeBody } from './schemas';
import { OpenChargeCapReached, insertCharge } from './insert-charge';
import { assertRedirectAllowed } from '@/lib/api-keys/publishable-origins';
import { paymentUrlFor } from './serialize';
import { newDepositAddress } from '@/lib/keyring/deposit-addresses';
import { merchantTokenRule } from '@/lib/merchants/tokens';
import { chargeEventRow } from './charge-events';
import { configuredSwapPairs, swapPairToken } from '@/lib/chains/swap-pairs';
import { isVerifiedForLive } from '@/lib/merchants/verification';
import { priceChargeInUsd } from './price-charge-in-usd';
import { assertChargeAboveMinimum } from './charge-minimum';
import { storedChargeItems } from './stored-charge-items';

export interface CreateChargeResult {
  chargeId: string;
  paymentUrl: string;
}

export async function createCharge(args: { ctx: ApiContext; input: CreateChargeBody }): Promise<CreateChargeResult> {
  try {
    const result = await buildCharge(args);
    metrics().chargesCreated.inc({ outcome: 'created' });
    return result;
  } catch (error) {
    metrics().chargesCreated.inc({ outcome: isAppError(error) ? error.code : 'internal_error' });
    throw error;
  }
}

async function buildCharge({ ctx, input }: { ctx: ApiContext; input: CreateChargeBody }): Promise<CreateChargeResult> {
  const { chargeData } = input;
  const mode = resolveMode(ctx, input);
  const chain = resolveChain(chargeData.chain, mode);
  const token = await resolveToken(ctx, chain, chargeData.symbol, chargeData.tokenAddress, mode);
  const { destination, toAddress } = resolveDestination(ctx, input, chain);
  assertRedirectAllowed(ctx.apiKey, chargeData.successUrl, 'chargeData.successUrl');
  assertRedirectAllowed(ctx.apiKey, chargeData.cancelUrl, 'chargeData.cancelUrl');
  const now = new Date();
  const usd = chargeData.pricing;
  const { items, totalBaseUnits, pricing } = usd
    ? await priceChargeInUsd({ ctx, input: { ...chargeData, pricing: usd }, chain, token, now })
    : { ...resolveAmounts(chargeData, token), pricing: null };

  const chargeId = newId('charge');
  const expiresAt = new Date(now.getTime() + env().CHARGE_EXPIRY_MINUTES * 60_000);
  const charge: ChargeRow = {
    id: chargeId,
    merchantId: ctx.merchant.id,
    apiKeyId: ctx.apiKey.id,
    viaPublishableKey: ctx.apiKey.kind === 'publishable',
    mode,
    chain: chain.name,
    tokenSymbol: token.symbol,
    tokenAddress: token.address,
    tokenDecimals: token.decimals,
    totalBaseUnits,
    items,
    destination,
    toAddress,
    isDirectTransfer: destination === 'direct_transfer',
    successUrl: chargeData.successUrl ?? null,
    cancelUrl: chargeData.cancelUrl ?? null,
    metadata: chargeData.metadata ?? {},
    pricing,
    status: 'pending',
    allowanceId: null,
    expiresAt,
    needsReviewSince: null,
    createdAt: now,
    updatedAt: now,
  };
  const db = ctx.tx ?? getDb();
  // The charge, its first timeline event, its deposit address and the charge.created outbox row
  // (fanned out to endpoints by the relay): one statement, all or nothing.
  const config = env();
  try {
    await insertCharge(db, {
      charge,
      event: { id: newId('chargeEvent'), type: 'charge.pending', actor: ctx.actor, data: { requestId: ctx.requestId } },
      depositAddress: await newDepositAddress(db, { id: chargeId, chain: chain.name, expiresAt }),
      outbox: chargeEventRow({ charge, type: 'charge.created', payments: [], createdAt: now }),
      openPublishableCap: ctx.apiKey.kind === 'publishable' ? config.MAX_OPEN_PUBLISHABLE_CHARGES_PER_MERCHANT : null,
    });
  } catch (error) {
    if (!(error instanceof OpenChargeCapReached)) throw error;
    throw new AppError(
      'open_charge_limit',
      `This merchant already has ${config.MAX_OPEN_PUBLISHABLE_CHARGES_PER_MERCHANT} open ${mode} charges created with publishable keys, the most allowed. Create charges from your server with a secret key, cancel unused ones, or wait for them to expire.`,
      { headers: { 'retry-after': '60' } },
    );
  }
  return { chargeId, paymentUrl: paymentUrlFor(chargeId) };
}

function resolveMode(ctx: ApiContext, input: CreateChargeBody): 'test' | 'live' {
  if (input.isTest === true && ctx.apiKey.mode === 'live') {
    throw new AppError('test_key_required', 'isTest is true: test charges need a test API key (cp_test_…).', { param: 'isTest' });
  }
  if (input.isTest === false && ctx.apiKey.mode === 'test') {
    throw new AppError(
      'live_key_required',
      'isTest is false: live charges need a production API key (cp_live_…). Use isTest: true with a test key.',
      { param: 'isTest' },
    );
  }
  return ctx.apiKey.mode;
}

function resolveChain(name: string, mode: 'test' | 'live'): ChainInfo {
  const upper = name.trim().toUpperCase();
  if (!isChainName(upper)) {
    throw new AppError('unsupported_chain', `Unknown chain "${name}". Supported chains: ${CHAIN_NAMES.join(', ')}.`, {
      param: 'chargeData.chain',
    });
  }
  const named = CHAINS[upper];
  if (mode === 'live' && named.isTestnet) {
    throw new AppError('unsupported_chain', `${named.name} is a test network: create test charges with isTest: true and a test API key.`, {
      param: 'chargeData.chain',
    });
  }
  const chain = mode === 'test' && !named.isTestnet ? CHAINS[named.testnet!] : named;
  if (!isChainServed(chain.name)) {
    const network = chain.name === named.name ? chain.name : `${chain.name} (the test network of ${named.name})`;
    throw new AppError('chain_not_configured', `Charges on ${network} are not available: ${chainNotServedReason(chain.name)}.`, {
      param: 'chargeData.chain',
    });
  }
  return chain;
}

async function resolveToken(
  ctx: ApiContext,
  chain: ChainInfo,
  symbol: string,
  tokenAddress: string,
  mode: 'test' | 'live',
): Promise<TokenInfo> {
  if (!isValidAddress(chain.family, tokenAddress)) {
    throw new AppError(
      'invalid_address',
      `tokenAddress "${tokenAddress}" is not a valid ${chain.family === 'evm' ? 'EVM' : 'Solana'} address.`,
      {
        param: 'chargeData.tokenAddress',
      },
    );
  }
  // The merchant's Tokens tab: a disabled token is refused, a custom ERC-20 is accepted.
  const rule = await merchantTokenRule(ctx.tx ?? getDb(), { merchantId: ctx.merchant.id, chain: chain.name, address: tokenAddress });
  if (rule?.disabled) {
    throw new AppError(
      'unsupported_token',
      `This merchant does not accept the token at ${tokenAddress} on ${chain.name} (disabled in the dashboard's Tokens tab).`,
      {
        param: 'chargeData.tokenAddress',
      },
    );
  }
  // Registry tokens, then the swap on-ramp's configured tokens (PZP on BSC, lib/chains/swap-pairs.ts), then the merchant's custom ones.
  const token = findToken(chain, tokenAddress) ?? swapPairToken(chain.name, tokenAddress) ?? (mode === 'live' ? rule?.custom : undefined);
  if (mode === 'test' && !token?.isNative) {
    const native = nativeToken(chain);
    throw new AppError(
      'unsupported_token',
      `Test charges support only the native token of the test network: ${native.symbol} (tokenAddress ${native.address}) on ${chain.name}.`,
      { param: 'chargeData.tokenAddress' },
    );
  }
  if (!token) {
    // The swap on-ramp's tokens (PZP) too: a merchant looking for PZP's address finds it here.
    const swapTokens = configuredSwapPairs()
      .filter((pair) => pair.chain === chain.name)
      .map((pair) => pair.target);
    const known = [...chain.tokens, ...swapTokens].map((t) => `${t.symbol} (${t.address})`).join(', ');
    throw new AppError('unsupported_token', `No known token at ${tokenAddress} on ${chain.name}. Known tokens: ${known}.`, {
      param: 'chargeData.tokenAddress',
    });
  }
  if (!tokenHasSymbol(token, symbol)) {
    throw new AppError(
      'unsupported_token',
      `symbol "${symbol}" does not match the token at ${tokenAddress} on ${chain.name}, which is ${token.symbol}.`,
      { param: 'chargeData.symbol' },
    );
  }
  return token;
}

function resolveDestination(
  ctx: ApiContext,
  input: CreateChargeBody,
  chain: ChainInfo,
): { destination: ChargeDestination; toAddress: string | null } {
  const raw = input.chargeData.toAddress;
  if (ctx.apiKey.kind === 'publishable' && (raw !== undefined || input.isDirectTransfer)) {
    throw new AppError(
      'key_not_permitted',
      'Publishable keys cannot send funds to another address (toAddress, isDirectTransfer). Create such charges from your server with a secret key.',
      { param: raw !== undefined ? 'chargeData.toAddress' : 'isDirectTransfer' },
    );
  }
  if (input.isDirectTransfer) {
    if (raw === undefined) {
      throw new AppError('invalid_request', 'chargeData.toAddress is required when isDirectTransfer is true.', {
        param: 'chargeData.toAddress',
      });
    }
    if (ctx.apiKey.mode !== 'live') {
      throw new AppError('live_key_required', 'Direct transfers need a production API key (cp_live_…).', { param: 'isDirectTransfer' });
    }
    if (!isVerifiedForLive(ctx.merchant)) {
      throw new AppError(
        'verification_required',
        ctx.merchant.verifiedAt
          ? 'Direct transfers wait until support re-verifies your business after its name change.'
          : 'Direct transfers need a merchant that completed business verification. Contact support.',
        { param: 'isDirectTransfer' },
      );
    }
  }
  if (raw === undefined) return { destination: 'merchant_wallet', toAddress: null };
  if (!isValidAddress(chain.family, raw)) {
    throw new AppError('invalid_address', `toAddress "${raw}" is not a valid address on ${chain.name}.`, {
      param: 'chargeData.toAddress',
    });
  }
  return {
    destination: input.isDirectTransfer ? 'direct_transfer' : 'to_address',
    toAddress: normalizeAddress(chain.family, raw),
  };
}

function resolveAmounts(
  chargeData: CreateChargeBody['chargeData'],
  token: TokenInfo,
): { items: StoredChargeItem[]; totalBaseUnits: bigint } {
  const lines = (chargeData.items ?? []).map((item, index) => {
    const unitBaseUnits = requireAmount(parseAmount(item.amount, token.decimals), token, `chargeData.items.${index}.amount`, item.amount);
    return { item, unitBaseUnits, quantity: item.quantity };
  });
  const stated =
    chargeData.amount === undefined
      ? undefined
      : requireAmount(parseAmount(chargeData.amount, token.decimals), token, 'chargeData.amount', chargeData.amount);

  if (lines.length === 0 && stated === undefined) {
    throw new AppError('invalid_request', 'Give chargeData.items (with amount and quantity) or chargeData.amount.', {
      param: 'chargeData.items',
    });
  }
  const itemsTotal = lines.length ? sumLineTotals(lines) : undefined;
  if (itemsTotal !== undefined && stated !== undefined && itemsTotal !== stated) {
    throw new AppError(
      'amount_mismatch',
      `chargeData.amount ${formatAmount(stated, token.decimals)} does not equal the items' total ${formatAmount(itemsTotal, token.decimals)} ${token.symbol}.`,
      { param: 'chargeData.amount' },
    );
  }
  const totalBaseUnits = (itemsTotal ?? stated)!;
  if (totalBaseUnits > MAX_BASE_UNITS) {
    throw new AppError('invalid_amount', `The charge total is larger than any ${token.symbol} amount can be.`, {
      param: 'chargeData.items',
    });
  }
  assertChargeAboveMinimum(totalBaseUnits, token, lines.length ? 'chargeData.items' : 'chargeData.amount');
  return { items: storedChargeItems(lines, token), totalBaseUnits };
}

function requireAmount(result: ParseAmountResult, token: TokenInfo, param: string, text: string): bigint {
  if (result.ok) return result.baseUnits;
  const messages: Record<typeof result.reason, string> = {
    format: `${param} "${text}" is not a decimal number.`,
    too_many_decimals: `${param} ${text} has more than ${token.decimals} fractional digits, the most ${token.symbol} allows.`,
    not_positive: `${param} must be greater than zero.`,
    too_large: `${param} ${text} is larger than any ${token.symbol} amount can be.`,
  };
  throw new AppError('invalid_amount', messages[result.reason], { param });
}
