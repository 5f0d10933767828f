import type { Metadata } from 'next';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { Notice } from '@/components/ui/card';
import { ChainBalances } from '@/components/wallet/chain-balances';
import { pinStatus } from '@/lib/accounts/pin-status';
import { requireUser } from '@/lib/auth/session';
import { formatUsd } from '@/lib/pricing/approximate-usd';
import { loadWalletHome } from '@/lib/wallets/cached-balance';
import type { SearchParams } from '@/lib/onramp/links/onramp-params';
import { walletLinkToBuy } from '@/lib/onramp/links/buy-target';

export const metadata: Metadata = { title: 'Wallet' };

/**
 * Home: the tokens of the user's wallets per chain, read from the chains (cached briefly), with a USD total.
 * With on-ramp parameters it is a link to Buy, before any sign-in (Buy decides whether it needs one).
 */
export default async function WalletHomePage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const buy = walletLinkToBuy(params);
  if (buy) redirect(buy);
  const user = await requireUser({ returnTo: '/wallet' });
  const [home, pin] = await Promise.all([loadWalletHome(user.id), pinStatus(user.id)]);
  return (
    <div className="flex flex-col gap-6">
      {params.pin === 'set' && <Notice tone="success">Your PIN is set. You can now pay and export keys.</Notice>}
      {params.pin === 'reset' && <Notice tone="success">Your new PIN is set.</Notice>}
      {!pin.isSet && (
        <div className="rounded-xl bg-amber-50 p-4 ring-1 ring-amber-200" data-testid="pin-prompt">
          <p className="font-medium text-amber-900">Set your PIN</p>
          <p className="mt-1 text-sm text-amber-900">You need a 6-digit PIN to make payments and export wallets.</p>
          <Link href="/account/pin" className="mt-3 inline-block text-sm font-semibold text-amber-950 underline underline-offset-4">
            Set PIN now
          </Link>
        </div>
      )}
      <section>
        <h1 className="text-2xl font-semibold">Your wallet</h1>
        <p className="mt-2 text-3xl font-semibold tabular-nums" data-testid="total-usd">
          ≈ {formatUsd(home.totalUsd)}
        </p>
        <p className="text-sm text-slate-600">
          {home.isTotalPartial ? 'Total in USD of the tokens with a known price, on main networks.' : 'Total in USD, on main networks.'}{' '}
          Balances are read from the chains and may be a few seconds old.
        </p>
      </section>
      {home.wallets.map((wallet) => {
        const main = wallet.chains.filter((chain) => !chain.isTestnet);
        const test = wallet.chains.filter((chain) => chain.isTestnet);
        const canSend = wallet.family === 'evm';
        return (
          <section key={wallet.id} className="flex flex-col gap-3" data-family={wallet.family} aria-labelledby={`wallet-${wallet.id}`}>
            <div>
              <h2 id={`wallet-${wallet.id}`} className="text-lg font-semibold">
                {wallet.family === 'evm' ? 'EVM wallet' : 'Solana wallet'}
              </h2>
              <p className="break-all font-mono text-sm text-slate-700" data-testid="wallet-address">
                {wallet.address}
              </p>
            </div>
            {main.map((chain) => (
              <ChainBalances key={chain.chain} chain={chain} address={wallet.address} canSend={canSend} />
            ))}
            {test.length > 0 && (
              <details className="rounded-xl bg-slate-50 p-3 ring-1 ring-slate-200">
                <summary className="cursor-pointer text-sm font-medium text-slate-700">
                  Test networks ({test.length}) — coins without value, for testing
                </summary>
                <div className="mt-3 flex flex-col gap-3">
                  {test.map((chain) => (
                    <ChainBalances key={chain.chain} chain={chain} address={wallet.address} canSend={canSend} />
                  ))}
                </div>
              </details>
            )}
          </section>
        );
      })}
      <p className="text-sm text-slate-600">
        <Link href="/wallet/allowances" className="font-semibold text-brand-700 underline underline-offset-4">
          Spending allowances
        </Link>{' '}
        — merchants you let charge you with one tap, no PIN, up to an amount a day.
      </p>
    </div>
  );
}
