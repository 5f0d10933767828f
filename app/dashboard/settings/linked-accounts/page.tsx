import type { Metadata } from 'next';
import Link from 'next/link';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { loadLinkedAccounts, type WalletWithBalances } from '@/lib/merchants/linked-accounts';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'Linked accounts' };

function Wallet({ wallet, testId }: { wallet: WalletWithBalances; testId: string }) {
  return (
    <li className="rounded-xl bg-white p-4 ring-1 ring-slate-200" data-testid={testId}>
      <p className="text-sm font-medium">{wallet.family === 'evm' ? 'EVM wallet (every EVM network)' : 'Solana wallet'}</p>
      <p className="break-all font-mono text-sm" data-testid="wallet-address">
        {wallet.address}
      </p>
      {wallet.balances.length > 0 && (
        <ul className="mt-2 grid gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
          {wallet.balances.map((balance) => (
            <li key={`${balance.chain}:${balance.symbol}`} className="flex justify-between gap-2">
              <span className="text-slate-600">
                {balance.symbol} on {balance.chainName}
              </span>
              <span className="font-mono tabular-nums">{balance.amount ?? 'unavailable'}</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

export default async function LinkedAccountsPage() {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/settings/linked-accounts' });
  const mode = await dashboardMode();
  const linked = await loadLinkedAccounts({ userId: user.id, merchantId: membership.merchant.id, mode });
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-8 px-4 py-8">
      <section className="flex flex-col gap-3">
        <h1 className="text-xl font-semibold">Linked accounts</h1>
        <h2 className="font-semibold">{membership.merchant.name}&apos;s service wallets</h2>
        <p className="text-sm text-slate-600">
          Succeeded charges are swept here (unless a charge names its own toAddress). Balances on the {mode} networks.
        </p>
        <ul className="flex flex-col gap-3">
          {linked.merchantWallets.map((wallet) => (
            <Wallet key={wallet.address} wallet={wallet} testId="merchant-wallet" />
          ))}
        </ul>
      </section>
      <section className="flex flex-col gap-3">
        <h2 className="font-semibold">Your account</h2>
        <p className="text-sm text-slate-600">
          Sign-in methods: <span data-testid="sign-in-methods">{linked.signInMethods.map((m) => m.label).join(', ') || 'none'}</span>.
          Phone: <span data-testid="linked-phone">{linked.phone ?? 'not linked'}</span> (
          <Link href="/account/phone" className="underline">
            manage
          </Link>
          ).
        </p>
        <ul className="flex flex-col gap-3">
          {linked.yourWallets.map((wallet) => (
            <Wallet key={wallet.address} wallet={wallet} testId="your-wallet" />
          ))}
        </ul>
        <Link href="/account/wallets" className="text-sm font-semibold text-brand-600 underline">
          Export keys and see key exports
        </Link>
      </section>
    </main>
  );
}
