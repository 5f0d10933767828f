// GET /wallet/buy — the wallet's Buy screen: a redirect to the on-ramp with the same parameters.
import { redirect } from 'next/navigation';
import type { NextRequest } from 'next/server';
import { requireUser } from '@/lib/auth/session';
import { listWallets } from '@/lib/wallets/list-wallets';
import { ONRAMP_LINK_PARAMS } from '@/app/onramp/onramp-params';
import { buyTarget } from './buy-target';

export async function GET(request: NextRequest): Promise<never> {
  const query = request.nextUrl.searchParams;
  // A link that names its wallet needs nobody signed in; otherwise the destination is the user's own wallet.
  const wallets = query.get('wallet') ? [] : await listWallets((await requireUser({ returnTo: `/wallet/buy${returnQuery(query)}` })).id);
  redirect(buyTarget(query, wallets));
}

function returnQuery(query: URLSearchParams): string {
  const kept = new URLSearchParams([...query].filter(([name]) => (ONRAMP_LINK_PARAMS as readonly string[]).includes(name)));
  const text = kept.toString();
  return text ? `?${text}` : '';
}
