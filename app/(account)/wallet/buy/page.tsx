// /wallet/buy — the wallet's Buy screen: a redirect to the on-ramp with the same parameters.
import { redirect } from 'next/navigation';
import { ONRAMP_LINK_PARAMS, type SearchParams } from '@/lib/onramp/links/onramp-params';
import { requireUser } from '@/lib/auth/session';
import { listWallets } from '@/lib/wallets/list-wallets';
import { buyTarget } from '@/lib/onramp/links/buy-target';

/**
 * A page, not a route handler: sign-in, sign-up and the PIN prompt return here through a server action's
 * redirect, which the client router follows as an RSC request. A page's redirect() moves the address bar
 * on to the on-ramp; a route handler's redirect was followed without it (the address stayed /wallet/buy).
 */
export default async function WalletBuyPage({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<never> {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(await searchParams)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) query.append(name, item);
  }
  // A link that names its wallet needs nobody signed in; otherwise the destination is the user's own wallet.
  const wallets = query.get('wallet') ? [] : await listWallets((await requireUser({ returnTo: `/wallet/buy${returnQuery(query)}` })).id);
  redirect(buyTarget(query, wallets));
}

function returnQuery(query: URLSearchParams): string {
  const kept = new URLSearchParams([...query].filter(([name]) => (ONRAMP_LINK_PARAMS as readonly string[]).includes(name)));
  const text = kept.toString();
  return text ? `?${text}` : '';
}
