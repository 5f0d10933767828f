import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { OrderLive } from '@/components/onramp/order-live';
import { getSessionUser } from '@/lib/auth/session';
import { isIdOf } from '@/lib/ids';
import { getOnrampOrderView } from '@/lib/onramp/orders/get-order';
import { listWallets } from '@/lib/wallets/list-wallets';
import { onrampHref } from '@/lib/onramp/links/onramp-params';

// The link is the capability (like a receipt): keep it out of search engines and other sites' logs.
export const metadata: Metadata = { title: 'Your order', robots: { index: false }, referrer: 'no-referrer' };

/** An on-ramp order, followed live until it ends. Shows only what the buyer entered and the provider reported. */
export default async function OnrampOrderPage({
  params,
  searchParams,
}: {
  params: Promise<{ orderId: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ orderId }, query] = await Promise.all([params, searchParams]);
  const order = isIdOf('onrampOrder', orderId) ? await getOnrampOrderView(orderId) : null;
  if (!order) notFound();
  const user = await getSessionUser().catch(() => undefined);
  // "Try again" with the same link; a purchase for the buyer's own wallet goes back without `wallet`.
  const ownWallet = user ? (await listWallets(user.id)).some((wallet) => wallet.address === order.walletAddress) : false;
  const retryHref = onrampHref({
    chain: order.chain,
    token: order.tokenSymbol,
    ...(ownWallet ? {} : { wallet: order.walletAddress, walletLabel: order.walletLabel }),
  });

  return (
    <div className="min-h-dvh">
      <header className="mx-auto flex max-w-2xl items-center justify-between gap-3 px-4 pt-4">
        <Link href="/onramp" className="text-sm font-semibold text-slate-700">
          Chargeport
        </Link>
      </header>
      <main className="mx-auto flex max-w-2xl flex-col gap-4 px-4 py-6 md:py-10">
        <h1 className="text-2xl font-semibold tracking-tight">
          {order.cryptoAmount} {order.tokenSymbol} from {order.providerName}
        </h1>
        <OrderLive
          initial={order}
          signedIn={!!user}
          retryHref={retryHref}
          embed={query.view === 'embed'}
          popupBlocked={query.popup === 'blocked'}
        />
        <p className="text-xs text-slate-500">Order {order.id}</p>
      </main>
    </div>
  );
}
