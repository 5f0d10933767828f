/**
 * The wallet's Buy screen goes to the on-ramp (spec: "a 'Buy' screen of the wallet website, which
 * redirects to the checkout on-ramp address"), with the same query parameters. When the link names a
 * chain but no wallet, the user's own wallet for that chain is added. The on-ramp validates everything
 * itself (app/onramp/onramp-params.ts): values are passed on as given, never corrected here.
 */
import { CHAINS, isChainName, type ChainFamily } from '@/lib/chains/registry';

export const ONRAMP_PARAMS = ['chain', 'token', 'wallet', 'wallet_label'] as const;

export function buyTarget(query: URLSearchParams, ownWallets: readonly { family: ChainFamily; address: string }[]): string {
  const target = new URLSearchParams();
  for (const name of ONRAMP_PARAMS) {
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
