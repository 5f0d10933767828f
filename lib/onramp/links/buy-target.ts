/**
 * The wallet's Buy screen goes to the on-ramp (spec: "a 'Buy' screen of the wallet website, which
 * redirects to the checkout on-ramp address"), with the same query parameters. When the link names a
 * chain but no wallet, the user's own wallet for that chain is added. The on-ramp validates everything
 * itself (lib/onramp/links/onramp-params.ts): values are passed on as given, never corrected here.
 */
import { hasOnrampLinkParams, ONRAMP_LINK_PARAMS, type SearchParams } from '@/lib/onramp/links/onramp-params';
import { CHAINS, isChainName, type ChainFamily } from '@/lib/chains/registry';

export function buyTarget(query: URLSearchParams, ownWallets: readonly { family: ChainFamily; address: string }[]): string {
  const target = new URLSearchParams();
  for (const name of ONRAMP_LINK_PARAMS) {
    const value = query.get(name);
    if (value !== null && value !== '') target.set(name, value);
  }
  const chain = target.get('chain')?.trim().toUpperCase();
  if (!target.has('wallet') && chain && isChainName(chain)) {
    const own = ownWallets.find((wallet) => wallet.family === CHAINS[chain].family);
    if (own) target.set('wallet', own.address);
  }
  const text = target.toString();
  return text ? `/onramp?${text}` : '/onramp';
}

/**
 * `/wallet` opened with on-ramp parameters (spec: "The same parameters can be passed to the wallet
 * website") is a link to Buy: the four parameters, first of each, as given. Buy asks for a sign-in
 * only when it needs the user's own wallet, and keeps the parameters through it.
 */
export function walletLinkToBuy(query: SearchParams): string | undefined {
  if (!hasOnrampLinkParams(query)) return undefined;
  const kept = new URLSearchParams();
  for (const name of ONRAMP_LINK_PARAMS) {
    const value = query[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) kept.set(name, first);
  }
  return `/wallet/buy?${kept.toString()}`;
}
