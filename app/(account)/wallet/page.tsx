import type { Metadata } from 'next';
import Link from 'next/link';
import { Notice } from '@/components/ui/card';
import { pinStatus } from '@/lib/accounts/pin';
import { requireUser } from '@/lib/auth/session';
import { CHAINS } from '@/lib/chains/registry';
import { listWallets } from '@/lib/wallets/list-wallets';

export const metadata: Metadata = { title: 'Wallet' };

export default async function WalletHomePage({ searchParams }: { searchParams: Promise<{ pin?: string }> }) {
  const user = await requireUser({ returnTo: '/wallet' });
  const [wallets, pin, params] = await Promise.all([listWallets(user.id), pinStatus(user.id), searchParams]);
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
        <h1 className="text-2xl font-semibold">Your wallets</h1>
        <p className="mt-1 text-sm text-slate-600">Generated for your account. Balances and activity arrive with payments.</p>
        <ul className="mt-4 flex flex-col gap-3" data-testid="wallets">
          {wallets.map((wallet) => (
            <li key={wallet.id} className="rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200" data-family={wallet.family}>
              <p className="text-sm font-medium">{wallet.family === 'evm' ? 'EVM wallet' : 'Solana wallet'}</p>
              <p className="mt-1 break-all font-mono text-sm" data-testid="wallet-address">
                {wallet.address}
              </p>
              <p className="mt-1 text-xs text-slate-500">{wallet.chains.map((chain) => CHAINS[chain].displayName).join(' · ')}</p>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
