/**
 * The on-ramp link's query parameters (spec "Hosted checkout and on-ramp site"): chain, token, wallet,
 * wallet_label, and optionally merchant + signature (a signed label, lib/onramp/link-signature.ts). A merchant builds these links for its players, so every value is untrusted: unknown
 * chains and tokens fall back to the unrestricted page with a message, an address that is not valid for
 * the chain is refused (nothing can be bought for it), and the label is display text only.
 */
import {
  CHAIN_NAMES,
  CHAINS,
  isValidAddress,
  normalizeAddress,
  tokenHasSymbol,
  type ChainFamily,
  type ChainName,
} from '@/lib/chains/registry';
import { cleanDisplayText } from '@/lib/text';

/** Main networks only: providers sell real tokens, never test-network coins. */
export const ONRAMP_CHAINS: readonly ChainName[] = CHAIN_NAMES.filter((name) => !CHAINS[name].isTestnet);

export const WALLET_LABEL_MAX_LENGTH = 64;
/** Longer than any address of a supported family; longer input is refused before it is parsed. */
const WALLET_MAX_LENGTH = 128;
/** How much of a bad value is echoed back in a message. */
const ECHO_MAX_LENGTH = 48;
const PREFERRED_TOKEN = 'USDC';

export type SearchParams = Record<string, string | string[] | undefined>;

/** The spec's four on-ramp link parameters (merchant + signature only ever come with wallet_label). */
export const ONRAMP_LINK_PARAMS = ['chain', 'token', 'wallet', 'wallet_label'] as const;

/**
 * Whether a query is an on-ramp link: one of the four parameters is present, even empty (a merchant's
 * template with a blank value still meant the on-ramp, which then treats the blank as absent).
 */
export function hasOnrampLinkParams(query: SearchParams): boolean {
  return ONRAMP_LINK_PARAMS.some((name) => query[name] !== undefined);
}

export interface OnrampParams {
  /** The chains offered, in registry order; one when the link names a valid chain and token. */
  chains: ChainName[];
  defaultChain: ChainName;
  /** Canonical registry symbol of the preselected token on `defaultChain`. */
  defaultToken: string;
  /**
   * The link's destination, valid for every chain in `chains`; `label` cleaned for display, `rawLabel`
   * as the link carries it (what a signature covers), `signature` when the link is signed.
   */
  wallet?: {
    address: string;
    family: ChainFamily;
    label: string | null;
    rawLabel: string | null;
    signature?: { merchantId: string; value: string };
  };
  /** Set when the link's wallet is not an address of the chain: the page refuses to buy for it. */
  walletError?: string;
  /** Why part of the link was ignored, for the buyer. */
  notices: string[];
}

function first(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

function echo(value: string): string {
  return value.length > ECHO_MAX_LENGTH ? `${value.slice(0, ECHO_MAX_LENGTH)}…` : value;
}

/**
 * The merchant's business name as the link carries it, made safe to show: control, bidirectional and
 * invisible characters removed (lib/text.ts: they could make the label read as something else),
 * whitespace collapsed, at most 64 characters. React escapes it when rendering; nothing else ever reads it.
 */
export function cleanWalletLabel(raw: string | undefined): string | null {
  if (!raw) return null;
  const cleaned = cleanDisplayText(raw);
  const codePoints = [...cleaned];
  if (!codePoints.length) return null;
  return codePoints.length > WALLET_LABEL_MAX_LENGTH ? `${codePoints.slice(0, WALLET_LABEL_MAX_LENGTH - 1).join('')}…` : cleaned;
}

function tokenOn(chain: ChainName, symbol: string): string | undefined {
  return CHAINS[chain].tokens.find((token) => tokenHasSymbol(token, symbol))?.symbol;
}

function defaultTokenOf(chain: ChainName): string {
  return tokenOn(chain, PREFERRED_TOKEN) ?? CHAINS[chain].tokens[0]!.symbol;
}

const FAMILIES: readonly ChainFamily[] = ['evm', 'solana'];

export function parseOnrampParams(query: SearchParams): OnrampParams {
  const chainParam = first(query.chain);
  const tokenParam = first(query.token);
  const walletParam = first(query.wallet);
  const notices: string[] = [];

  // chain and token go together: both valid restrict the page, otherwise it is unrestricted.
  let chains: ChainName[] = [...ONRAMP_CHAINS];
  let defaultChain: ChainName = chains[0]!;
  let defaultToken: string | undefined;
  if (chainParam) {
    const name = chainParam.toUpperCase();
    const known = (CHAIN_NAMES as readonly string[]).includes(name) ? (name as ChainName) : undefined;
    if (!known) {
      notices.push(`There is no chain “${echo(chainParam)}” to buy on here. Pick one of the chains below.`);
    } else if (!ONRAMP_CHAINS.includes(known)) {
      notices.push(`${CHAINS[known].displayName} is a test network: its coins cannot be bought. Pick one of the chains below.`);
    } else {
      const symbol = tokenParam ? tokenOn(known, tokenParam) : defaultTokenOf(known);
      if (symbol) {
        chains = [known];
        defaultChain = known;
        defaultToken = symbol;
      } else {
        notices.push(`${echo(tokenParam!)} is not a token on ${CHAINS[known].displayName}. Pick a chain and token below.`);
      }
    }
  } else if (tokenParam) {
    // A token alone is only a preference: the first chain that has it.
    const chain = ONRAMP_CHAINS.find((name) => tokenOn(name, tokenParam));
    if (chain) {
      defaultChain = chain;
      defaultToken = tokenOn(chain, tokenParam);
    } else {
      notices.push(`${echo(tokenParam)} cannot be bought here. Pick a chain and token below.`);
    }
  }

  let wallet: OnrampParams['wallet'];
  let walletError: string | undefined;
  if (walletParam) {
    const restricted = chains.length === 1 ? chains[0]! : undefined;
    const family = walletParam.length <= WALLET_MAX_LENGTH ? FAMILIES.find((f) => isValidAddress(f, walletParam)) : undefined;
    if (restricted && family !== CHAINS[restricted].family) {
      walletError = `“${echo(walletParam)}” is not a valid ${CHAINS[restricted].displayName} wallet address, so nothing can be bought for it. Ask for a new link, or buy for your own wallet instead.`;
    } else if (!family) {
      walletError = `“${echo(walletParam)}” is not a valid wallet address on any chain offered here, so nothing can be bought for it. Ask for a new link, or buy for your own wallet instead.`;
    } else {
      const rawLabel = first(query.wallet_label) ?? null;
      const merchantId = first(query.merchant);
      const signature = first(query.signature);
      wallet = {
        address: normalizeAddress(family, walletParam),
        family,
        label: cleanWalletLabel(rawLabel ?? undefined),
        rawLabel,
        ...(merchantId && signature && rawLabel ? { signature: { merchantId, value: signature } } : {}),
      };
      // The address decides the family: only chains where it can receive are offered.
      chains = chains.filter((name) => CHAINS[name].family === family);
      if (CHAINS[defaultChain].family !== family) {
        defaultChain = chains[0]!;
        defaultToken = undefined;
      }
    }
  }

  return { chains, defaultChain, defaultToken: defaultToken ?? defaultTokenOf(defaultChain), wallet, walletError, notices };
}

/** The link again, for "Try again" and sign-in return paths: only its parameters, encoded. */
export function onrampHref(params: {
  chain?: string;
  token?: string;
  wallet?: string;
  walletLabel?: string | null;
  signature?: { merchantId: string; value: string };
}): string {
  const query = new URLSearchParams();
  if (params.chain) query.set('chain', params.chain);
  if (params.token) query.set('token', params.token);
  if (params.wallet) query.set('wallet', params.wallet);
  if (params.wallet && params.walletLabel) query.set('wallet_label', params.walletLabel);
  if (params.wallet && params.walletLabel && params.signature) {
    query.set('merchant', params.signature.merchantId);
    query.set('signature', params.signature.value);
  }
  const text = query.toString();
  return text ? `/onramp?${text}` : '/onramp';
}
