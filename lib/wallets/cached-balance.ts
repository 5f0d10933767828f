/**
 * The wallet's Home: every token the user's service wallets hold, per chain, read from the chains, with
 * approximate USD values and a total.
 *
 *  - Per wallet, every chain of its family: main networks, then test networks (shown apart). The local
 *    development nodes carry the main networks' ids, so the demo's funds show under the main networks.
 *  - Per chain: the native coin always, and every registry token with a non-zero balance.
 *  - Balances are cached in-process for 15 s per (chain, address, token), and the read in flight is
 *    shared, so a refresh storm costs the RPC one read per token. Failed reads are cached for 5 s only.
 *    The incoming-transfer indexer and sends forget a wallet's entries when they change its balance.
 *  - A chain without an RPC, or one that does not answer, is "unavailable" — never shown as zero.
 *  - USD: each token's value is rounded to cents (lib/pricing/approximate-usd.ts, exact arithmetic), and the
 *    total is the exact sum of the values shown, in integer cents. Tokens without a fresh price are
 *    listed without USD and the total says it covers the tokens with a known price. Test-network coins
 *    have no USD value.
 */
import { address as solanaAddress } from '@solana/kit';
import { CHAINS, type ChainFamily, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { rpcUrl } from '@/lib/env';
import { formatAmount } from '@/lib/money';
import { solanaRpcFor } from '@/lib/chains/solana-rpc';
import { approximateUsd } from '@/lib/pricing/approximate-usd';
import { listWallets } from './list-wallets';
import { tokenBalance } from './token-balance';

export const BALANCE_TTL_MS = 15_000;
const FAILED_READ_TTL_MS = 5_000;
/** Above this many entries, expired ones are pruned on the next write. */
const CACHE_PRUNE_AT = 5_000;

type Reading = bigint | undefined;
interface CacheEntry {
  expiresAt: number;
  reading: Promise<Reading>;
}

const globalForBalances = globalThis as unknown as { __chargeportBalances?: Map<string, CacheEntry> };
const cache = (globalForBalances.__chargeportBalances ??= new Map());

/** EVM addresses compare case-insensitively; Solana addresses are case-sensitive. */
function addressKey(chain: ChainName, address: string): string {
  return `${chain}:${CHAINS[chain].family === 'evm' ? address.toLowerCase() : address}`;
}

export interface BalanceReadOptions {
  now?: () => number;
  /** The uncached read (tests count calls through it). */
  read?: (chain: ChainName, token: TokenInfo, address: string) => Promise<Reading>;
}

/** The wallet's balance of one token in base units, cached briefly; undefined when the chain cannot be read. */
export function cachedBalance(chain: ChainName, token: TokenInfo, address: string, options: BalanceReadOptions = {}): Promise<Reading> {
  const now = options.now ?? Date.now;
  const key = `${addressKey(chain, address)}:${token.address.toLowerCase()}`;
  const hit = cache.get(key);
  if (hit && hit.expiresAt > now()) return hit.reading;
  if (cache.size >= CACHE_PRUNE_AT) {
    for (const [k, entry] of cache) if (entry.expiresAt <= now()) cache.delete(k);
  }
  const entry: CacheEntry = {
    expiresAt: now() + BALANCE_TTL_MS,
    reading: (options.read ?? uncachedBalance)(chain, token, address).catch(() => undefined),
  };
  cache.set(key, entry);
  void entry.reading.then((reading) => {
    if (reading === undefined && cache.get(key) === entry) entry.expiresAt = Math.min(entry.expiresAt, now() + FAILED_READ_TTL_MS);
  });
  return entry.reading;
}

/** Drops the cached balances of a wallet on a chain: its balance just changed (a transfer in or out). */
export function forgetBalances(chain: ChainName, address: string): void {
  const prefix = `${addressKey(chain, address)}:`;
  for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key);
}

/** Whether the chain has an RPC (configured, or a local development node). */
export function isChainConnected(chain: ChainName): boolean {
  return rpcUrl(chain) !== undefined;
}

/** The balance read from the chain now, past the cache: what a payment is about to be checked against. */
export async function uncachedBalance(chain: ChainName, token: TokenInfo, address: string): Promise<Reading> {
  return CHAINS[chain].family === 'evm' ? tokenBalance(chain, token, address) : solanaBalance(chain, token, address);
}

/** SOL in lamports, or an SPL token summed over the owner's token accounts of that mint (none: zero). */
async function solanaBalance(chain: ChainName, token: TokenInfo, owner: string): Promise<Reading> {
  const rpc = solanaRpcFor(chain);
  if (!rpc) return undefined;
  try {
    if (token.isNative) return BigInt((await rpc.getBalance(solanaAddress(owner)).send()).value);
    // Usually the associated token account; any other account of the same mint counts too.
    const { value } = await rpc
      .getTokenAccountsByOwner(solanaAddress(owner), { mint: solanaAddress(token.address) }, { encoding: 'jsonParsed' })
      .send();
    return value.reduce((sum, account) => sum + BigInt(account.account.data.parsed.info.tokenAmount.amount), 0n);
  } catch {
    return undefined;
  }
}

interface HomeToken {
  symbol: string;
  name: string;
  tokenAddress: string;
  isNative: boolean;
  /** Base units and exact decimal text; null when this token could not be read. */
  baseUnits: bigint | null;
  amount: string | null;
  /** Approximate USD value rounded to cents ("12.34"), when the token has a fresh price (main networks only). */
  usd?: string;
}

export interface HomeChain {
  chain: ChainName;
  displayName: string;
  isTestnet: boolean;
  /** `not_connected`: no RPC configured; `unreachable`: the RPC did not answer. */
  status: 'ok' | 'not_connected' | 'unreachable';
  tokens: HomeToken[];
}

interface HomeWallet {
  id: string;
  family: ChainFamily;
  address: string;
  chains: HomeChain[];
}

export interface WalletHome {
  wallets: HomeWallet[];
  /** Σ of the USD values shown (main networks), "1234.56". */
  totalUsd: string;
  /** Some held token (or unreadable chain) has no USD value: the total covers the tokens with a known price. */
  isTotalPartial: boolean;
}

export async function loadWalletHome(userId: string, options: BalanceReadOptions & { priceAt?: Date } = {}): Promise<WalletHome> {
  const rows = await listWallets(userId);
  const wallets = await Promise.all(
    rows.map(async (wallet): Promise<HomeWallet> => {
      // Main networks first, then test networks, each in registry order.
      const chains = [...wallet.chains].sort((a, b) => Number(CHAINS[a].isTestnet) - Number(CHAINS[b].isTestnet));
      return {
        id: wallet.id,
        family: wallet.family,
        address: wallet.address,
        chains: await Promise.all(chains.map((chain) => loadChain(chain, wallet.address, options))),
      };
    }),
  );
  return { wallets, ...usdTotal(wallets.flatMap((w) => w.chains)) };
}

/**
 * The exact sum of the USD values shown on the main networks, in integer cents; partial when a held
 * token has no price or a chain could not be read.
 */
export function usdTotal(chains: readonly HomeChain[]): { totalUsd: string; isTotalPartial: boolean } {
  let cents = 0n;
  let isTotalPartial = false;
  for (const chain of chains.filter((c) => !c.isTestnet)) {
    if (chain.status !== 'ok') isTotalPartial = true;
    for (const token of chain.tokens) {
      if (token.usd !== undefined) cents += usdToCents(token.usd);
      else if (token.baseUnits !== 0n) isTotalPartial = true;
    }
  }
  return { totalUsd: centsToUsd(cents), isTotalPartial };
}

async function loadChain(chain: ChainName, address: string, options: BalanceReadOptions & { priceAt?: Date }): Promise<HomeChain> {
  const info = CHAINS[chain];
  const base = { chain, displayName: info.displayName, isTestnet: info.isTestnet };
  if (!isChainConnected(chain)) return { ...base, status: 'not_connected', tokens: [] };
  const readings = await Promise.all(info.tokens.map((token) => cachedBalance(chain, token, address, options)));
  if (readings.every((reading) => reading === undefined)) return { ...base, status: 'unreachable', tokens: [] };
  const tokens = await Promise.all(
    info.tokens.flatMap((token, i) => {
      const reading = readings[i];
      if (!token.isNative && reading === 0n) return [];
      return [
        (async (): Promise<HomeToken> => {
          const usd =
            reading !== undefined && !info.isTestnet
              ? await approximateUsd(token, reading, options.priceAt).catch(() => undefined)
              : undefined;
          return {
            symbol: token.symbol,
            name: token.name,
            tokenAddress: token.address,
            isNative: token.isNative,
            baseUnits: reading ?? null,
            amount: reading === undefined ? null : formatAmount(reading, token.decimals),
            ...(usd !== undefined ? { usd } : {}),
          };
        })(),
      ];
    }),
  );
  return { ...base, status: 'ok', tokens };
}

/** "12.34" → 1234n. The values come from multiplyToCents: always two decimals. */
function usdToCents(usd: string): bigint {
  const match = /^(\d+)\.(\d{2})$/.exec(usd);
  if (!match) throw new Error(`not a USD amount in cents: ${usd}`);
  return BigInt(match[1]! + match[2]!);
}

function centsToUsd(cents: bigint): string {
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}
