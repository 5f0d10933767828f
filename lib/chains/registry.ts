/**
 * The chain registry: every chain a charge may name, with its tokens.
 *
 * `chain` on the wire is the upper-case name used by the spec (POLYGON, SOLANA, DFK, BSC) or the
 * name of one of their test networks. Token addresses are the canonical ones on each network;
 * the local development nodes plant demo tokens at the same addresses (see scripts/stack/local-chain.ts),
 * so the registry is the same whether a chain runs locally or on a configured RPC.
 *
 * Reviewed: 2026-11-22. Add a token here only with its address checked against the issuer.
 */
import { isAddress as isEvmAddress, getAddress } from 'viem';
import { isAddress as isSolanaAddress } from '@solana/kit';

export const CHAIN_NAMES = ['POLYGON', 'POLYGON_AMOY', 'BSC', 'BSC_TESTNET', 'DFK', 'DFK_TESTNET', 'SOLANA', 'SOLANA_DEVNET'] as const;
export type ChainName = (typeof CHAIN_NAMES)[number];

export type ChainFamily = 'evm' | 'solana';

export interface TokenInfo {
  symbol: string;
  name: string;
  /** EVM: 0x address (the all-zero address for the native coin); Solana: mint address. */
  address: string;
  decimals: number;
  isNative: boolean;
  /** Other symbols merchants use for the same token (POL was MATIC until 2024). */
  aliases?: readonly string[];
  /** A USD stablecoin: its approximate USD value is its amount. */
  usdPegged?: boolean;
  /** The price feed's id for the token (CoinGecko ids), for approximate USD values. Test coins use their main network's. */
  priceId?: string;
  /** The smallest charge in this token (whole tokens): below it, fees cost more than the charge brings. Stablecoins: 0.10. */
  minChargeAmount?: string;
}

/** A token's smallest charge in base units (undefined: no minimum, e.g. a merchant's custom token). */
export function minimumChargeOf(token: TokenInfo): bigint | undefined {
  const text = token.minChargeAmount ?? (token.usdPegged ? '0.1' : undefined);
  if (text === undefined) return undefined;
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole + fraction.padEnd(token.decimals, '0').slice(0, token.decimals));
}

export interface ChainInfo {
  name: ChainName;
  displayName: string;
  family: ChainFamily;
  isTestnet: boolean;
  /** For a main network: its test network, used by test charges. */
  testnet?: ChainName;
  /** EIP-155 chain id (EVM only); the local node runs with the same id. */
  evmChainId?: number;
  /** Block explorer base, for transaction links. */
  explorerUrl?: string;
  /** Confirmations before a payment counts as settled on a real network. */
  confirmations: number;
  tokens: readonly TokenInfo[];
}

export const EVM_NATIVE_TOKEN_ADDRESS = '0x0000000000000000000000000000000000000000';
/** The wrapped-SOL mint: the spec's Solana examples use it for the native coin. */
export const SOLANA_NATIVE_MINT = 'So11111111111111111111111111111111111111112';

const evmNative = (symbol: string, name: string, priceId: string, minChargeAmount: string, aliases?: readonly string[]): TokenInfo => ({
  symbol,
  name,
  address: EVM_NATIVE_TOKEN_ADDRESS,
  decimals: 18,
  isNative: true,
  priceId,
  minChargeAmount,
  ...(aliases ? { aliases } : {}),
});
const solNative: TokenInfo = {
  symbol: 'SOL',
  name: 'Solana',
  address: SOLANA_NATIVE_MINT,
  decimals: 9,
  isNative: true,
  priceId: 'solana',
  minChargeAmount: '0.0005',
};

export const CHAINS: Readonly<Record<ChainName, ChainInfo>> = {
  POLYGON: {
    name: 'POLYGON',
    displayName: 'Polygon',
    family: 'evm',
    isTestnet: false,
    testnet: 'POLYGON_AMOY',
    evmChainId: 137,
    explorerUrl: 'https://polygonscan.com',
    confirmations: 30,
    tokens: [
      evmNative('POL', 'Polygon Ecosystem Token', 'polygon-ecosystem-token', '0.1', ['MATIC']),
      {
        symbol: 'USDC',
        name: 'USD Coin',
        address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        decimals: 6,
        isNative: false,
        usdPegged: true,
      },
      {
        symbol: 'USDT',
        name: 'Tether USD',
        address: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
        decimals: 6,
        isNative: false,
        usdPegged: true,
      },
    ],
  },
  POLYGON_AMOY: {
    name: 'POLYGON_AMOY',
    displayName: 'Polygon Amoy (test)',
    family: 'evm',
    isTestnet: true,
    evmChainId: 80002,
    explorerUrl: 'https://amoy.polygonscan.com',
    confirmations: 5,
    tokens: [evmNative('POL', 'Polygon Ecosystem Token (test)', 'polygon-ecosystem-token', '0.1', ['MATIC'])],
  },
  BSC: {
    name: 'BSC',
    displayName: 'BNB Smart Chain',
    family: 'evm',
    isTestnet: false,
    testnet: 'BSC_TESTNET',
    evmChainId: 56,
    explorerUrl: 'https://bscscan.com',
    confirmations: 15,
    tokens: [
      evmNative('BNB', 'BNB', 'binancecoin', '0.0002'),
      {
        symbol: 'USDT',
        name: 'Tether USD',
        address: '0x55d398326f99059fF775485246999027B3197955',
        decimals: 18,
        isNative: false,
        usdPegged: true,
      },
      {
        symbol: 'USDC',
        name: 'USD Coin',
        address: '0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d',
        decimals: 18,
        isNative: false,
        usdPegged: true,
      },
    ],
  },
  BSC_TESTNET: {
    name: 'BSC_TESTNET',
    displayName: 'BNB Smart Chain testnet',
    family: 'evm',
    isTestnet: true,
    evmChainId: 97,
    explorerUrl: 'https://testnet.bscscan.com',
    confirmations: 3,
    tokens: [evmNative('BNB', 'BNB (test)', 'binancecoin', '0.0002', ['TBNB'])],
  },
  DFK: {
    name: 'DFK',
    displayName: 'DFK Chain',
    family: 'evm',
    isTestnet: false,
    testnet: 'DFK_TESTNET',
    evmChainId: 53935,
    explorerUrl: 'https://subnets.avax.network/defi-kingdoms',
    confirmations: 5,
    tokens: [evmNative('JEWEL', 'JEWEL', 'defi-kingdoms', '1')],
  },
  DFK_TESTNET: {
    name: 'DFK_TESTNET',
    displayName: 'DFK Chain testnet',
    family: 'evm',
    isTestnet: true,
    evmChainId: 335,
    confirmations: 2,
    tokens: [evmNative('JEWEL', 'JEWEL (test)', 'defi-kingdoms', '1')],
  },
  SOLANA: {
    name: 'SOLANA',
    displayName: 'Solana',
    family: 'solana',
    isTestnet: false,
    testnet: 'SOLANA_DEVNET',
    explorerUrl: 'https://explorer.solana.com',
    confirmations: 1,
    tokens: [
      solNative,
      {
        symbol: 'USDC',
        name: 'USD Coin',
        address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
        decimals: 6,
        isNative: false,
        usdPegged: true,
      },
    ],
  },
  SOLANA_DEVNET: {
    name: 'SOLANA_DEVNET',
    displayName: 'Solana devnet (test)',
    family: 'solana',
    isTestnet: true,
    explorerUrl: 'https://explorer.solana.com',
    confirmations: 1,
    tokens: [solNative],
  },
};

export const EVM_CHAIN_NAMES = CHAIN_NAMES.filter((name) => CHAINS[name].family === 'evm');

export function isChainName(value: string): value is ChainName {
  return (CHAIN_NAMES as readonly string[]).includes(value);
}

export function getChain(name: ChainName): ChainInfo {
  return CHAINS[name];
}

/** Whether `address` is a well-formed account address for the chain's family. */
export function isValidAddress(family: ChainFamily, address: string): boolean {
  if (family === 'evm') return isEvmAddress(address, { strict: true });
  return isSolanaAddress(address);
}

/** Canonical form used for storage and comparison (EIP-55 checksum on EVM; Solana is case-sensitive). */
export function normalizeAddress(family: ChainFamily, address: string): string {
  return family === 'evm' ? getAddress(address) : address;
}

/** The token on `chain` whose address is `address` (compared in canonical form), if any. */
export function findToken(chain: ChainInfo, address: string): TokenInfo | undefined {
  if (!isValidAddress(chain.family, address)) return undefined;
  // EVM addresses are case-insensitive once valid (a bad checksum was refused above); Solana's are exact.
  if (chain.family === 'evm') {
    const wanted = address.toLowerCase();
    return chain.tokens.find((token) => token.address.toLowerCase() === wanted);
  }
  return chain.tokens.find((token) => token.address === address);
}

export function explorerTxUrl(chain: ChainInfo, txHash: string): string | undefined {
  if (!chain.explorerUrl) return undefined;
  // Not a transaction: native coin credited from a balance change (`balance:<block hash>:<address>`).
  if (txHash.startsWith('balance:')) return undefined;
  const cluster = chain.name === 'SOLANA_DEVNET' ? '?cluster=devnet' : '';
  return `${chain.explorerUrl}/tx/${txHash}${cluster}`;
}

/** Whether `symbol` names the token (case-insensitive, aliases included). */
export function tokenHasSymbol(token: TokenInfo, symbol: string): boolean {
  const wanted = symbol.trim().toUpperCase();
  return token.symbol.toUpperCase() === wanted || (token.aliases ?? []).some((alias) => alias.toUpperCase() === wanted);
}

export function nativeToken(chain: ChainInfo): TokenInfo {
  const token = chain.tokens.find((t) => t.isNative);
  if (!token) throw new Error(`${chain.name} has no native token in the registry`);
  return token;
}
