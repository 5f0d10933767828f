/**
 * Which provider code buys which registry token: reviewed data, not code. Every (chain, token) of
 * lib/chains/registry.ts has an entry per provider, so a token added to the registry fails the
 * completeness test until someone looks it up here.
 *
 * Reviewed: 2026-11-22. Sources:
 * - MoonPay widget `currencyCode` ("use the currency codes listed in the MoonPay Dashboard"):
 *   https://dev.moonpay.com/docs/ramps-sdk-buy-params and
 *   https://dev.moonpay.com/widget/on-ramp/customization/parameters.md. MoonPay's own list of codes
 *   in its public repository moonpay/skills (skills/moonpay-buy-crypto/SKILL.md): sol, pol_polygon,
 *   usdc_sol, usdc_polygon. Codes only seen in an integrator's enum of MoonPay codes
 *   (Privy `MoonpayCurrencyCode`: usdt_polygon, bnb_bsc) are marked `source: 'integrator'`.
 * - Transak widget `network` + `cryptoCurrencyCode`: https://docs.transak.com/docs/query-parameters
 *   and https://docs.transak.com/guides/how-to-use-advanced-query-params (network key `polygon`).
 * The authoritative, account-specific lists are MoonPay GET /v3/currencies (code,
 * metadata.contractAddress, metadata.networkCode) and Transak GET /api/v2/currencies/crypto-currencies
 * (symbol, network.name); before enabling an `unverified` entry, or to check which contract a
 * provider delivers (Polygon USDC: native 0x3c499c… in our registry, not bridged USDC.e), compare
 * with those answers.
 *
 * Status: `supported` — the code is documented and the provider sells the asset on this chain;
 * `unverified` — the code is a likely one but no document we could read confirms it; never offered;
 * `unsupported` — the provider does not sell it (or not on this network).
 */
import { CHAINS, tokenHasSymbol, type ChainName } from '@/lib/chains/registry';
import type { OnrampProviderId } from './types';

export interface MoonPayAssetCode {
  currencyCode: string;
}
export interface TransakAssetCode {
  network: string;
  cryptoCurrencyCode: string;
}

export type AssetEntry<Code> =
  | { status: 'supported'; code: Code; source: 'provider' | 'integrator'; note?: string }
  | { status: 'unverified'; code: Code; note: string }
  | { status: 'unsupported'; reason: string };

type AssetTable<Code> = Readonly<Record<ChainName, Readonly<Record<string, AssetEntry<Code>>>>>;

const TESTNET = 'test charges use the provider sandbox; delivery on this test network is not documented';
const POLYGON_KEY = 'network key `polygon` is in Transak\u2019s docs; the symbol as integrators pass it';
const NOT_LISTED = 'not in the provider\u2019s list of buyable currencies';

export const MOONPAY_ASSETS: AssetTable<MoonPayAssetCode> = {
  POLYGON: {
    POL: {
      status: 'supported',
      code: { currencyCode: 'pol_polygon' },
      source: 'provider',
      note: 'was matic_polygon before the 2024 POL migration',
    },
    USDC: {
      status: 'supported',
      code: { currencyCode: 'usdc_polygon' },
      source: 'provider',
      note: 'confirm metadata.contractAddress is native USDC',
    },
    USDT: { status: 'supported', code: { currencyCode: 'usdt_polygon' }, source: 'integrator' },
  },
  POLYGON_AMOY: { POL: { status: 'unsupported', reason: TESTNET } },
  BSC: {
    BNB: { status: 'supported', code: { currencyCode: 'bnb_bsc' }, source: 'integrator' },
    USDT: {
      status: 'unverified',
      code: { currencyCode: 'usdt_bsc' },
      note: 'follows MoonPay\u2019s <token>_<network> pattern; not found in any document',
    },
    USDC: {
      status: 'unverified',
      code: { currencyCode: 'usdc_bsc' },
      note: 'follows MoonPay\u2019s <token>_<network> pattern; not found in any document',
    },
  },
  BSC_TESTNET: { BNB: { status: 'unsupported', reason: TESTNET } },
  DFK: { JEWEL: { status: 'unsupported', reason: NOT_LISTED } },
  DFK_TESTNET: { JEWEL: { status: 'unsupported', reason: NOT_LISTED } },
  SOLANA: {
    SOL: { status: 'supported', code: { currencyCode: 'sol' }, source: 'provider' },
    USDC: { status: 'supported', code: { currencyCode: 'usdc_sol' }, source: 'provider' },
  },
  SOLANA_DEVNET: { SOL: { status: 'unsupported', reason: TESTNET } },
};

export const TRANSAK_ASSETS: AssetTable<TransakAssetCode> = {
  POLYGON: {
    POL: {
      status: 'unverified',
      code: { network: 'polygon', cryptoCurrencyCode: 'POL' },
      note: 'Polygon\u2019s native coin may still be listed as MATIC',
    },
    USDC: { status: 'supported', code: { network: 'polygon', cryptoCurrencyCode: 'USDC' }, source: 'integrator', note: POLYGON_KEY },
    USDT: { status: 'supported', code: { network: 'polygon', cryptoCurrencyCode: 'USDT' }, source: 'integrator', note: POLYGON_KEY },
  },
  POLYGON_AMOY: { POL: { status: 'unsupported', reason: TESTNET } },
  BSC: {
    BNB: { status: 'unverified', code: { network: 'bsc', cryptoCurrencyCode: 'BNB' }, note: 'network key `bsc` not confirmed in the docs' },
    USDT: {
      status: 'unverified',
      code: { network: 'bsc', cryptoCurrencyCode: 'USDT' },
      note: 'network key `bsc` not confirmed in the docs',
    },
    USDC: {
      status: 'unverified',
      code: { network: 'bsc', cryptoCurrencyCode: 'USDC' },
      note: 'network key `bsc` not confirmed in the docs',
    },
  },
  BSC_TESTNET: { BNB: { status: 'unsupported', reason: TESTNET } },
  DFK: { JEWEL: { status: 'unsupported', reason: NOT_LISTED } },
  DFK_TESTNET: { JEWEL: { status: 'unsupported', reason: NOT_LISTED } },
  SOLANA: {
    SOL: {
      status: 'unverified',
      code: { network: 'solana', cryptoCurrencyCode: 'SOL' },
      note: 'network key `solana` not confirmed in the docs',
    },
    USDC: {
      status: 'unverified',
      code: { network: 'solana', cryptoCurrencyCode: 'USDC' },
      note: 'network key `solana` not confirmed in the docs',
    },
  },
  SOLANA_DEVNET: { SOL: { status: 'unsupported', reason: TESTNET } },
};

/** The registry symbol a table entry is keyed by, resolving aliases (MATIC → POL). */
function registrySymbol(chain: ChainName, symbol: string): string | undefined {
  return CHAINS[chain].tokens.find((token) => tokenHasSymbol(token, symbol))?.symbol;
}

function assetEntry<Code>(table: AssetTable<Code>, chain: ChainName, symbol: string): AssetEntry<Code> | undefined {
  const key = registrySymbol(chain, symbol);
  return key === undefined ? undefined : table[chain][key];
}

/** MoonPay's currency code for the token, or undefined unless the entry is `supported`. */
export function moonPayCurrencyCode(chain: ChainName, symbol: string): string | undefined {
  const entry = assetEntry(MOONPAY_ASSETS, chain, symbol);
  return entry?.status === 'supported' ? entry.code.currencyCode : undefined;
}

/** Transak's network and currency code for the token, or undefined unless the entry is `supported`. */
export function transakAssetCode(chain: ChainName, symbol: string): TransakAssetCode | undefined {
  const entry = assetEntry(TRANSAK_ASSETS, chain, symbol);
  return entry?.status === 'supported' ? entry.code : undefined;
}

export function isAssetSupported(provider: OnrampProviderId, chain: ChainName, symbol: string): boolean {
  return provider === 'moonpay' ? moonPayCurrencyCode(chain, symbol) !== undefined : transakAssetCode(chain, symbol) !== undefined;
}

/** Our main-network chain and token for a MoonPay currency code (webhooks carry `currency.code`). */
export function assetForMoonPayCode(currencyCode: string): { chain: ChainName; tokenSymbol: string } | undefined {
  const wanted = currencyCode.toLowerCase();
  return findAsset(MOONPAY_ASSETS, (code) => code.currencyCode === wanted);
}

/** Our main-network chain and token for Transak's network and symbol (webhooks carry both). */
export function assetForTransakCode(network: string, cryptoCurrencyCode: string): { chain: ChainName; tokenSymbol: string } | undefined {
  const wantedNetwork = network.toLowerCase();
  const wantedSymbol = cryptoCurrencyCode.toUpperCase();
  return findAsset(TRANSAK_ASSETS, (code) => code.network === wantedNetwork && code.cryptoCurrencyCode === wantedSymbol);
}

function findAsset<Code>(table: AssetTable<Code>, matches: (code: Code) => boolean): { chain: ChainName; tokenSymbol: string } | undefined {
  for (const [chain, tokens] of Object.entries(table) as [ChainName, Readonly<Record<string, AssetEntry<Code>>>][]) {
    if (CHAINS[chain].isTestnet) continue;
    for (const [tokenSymbol, entry] of Object.entries(tokens)) {
      if (entry.status === 'supported' && matches(entry.code)) return { chain, tokenSymbol };
    }
  }
  return undefined;
}
