import type { Metadata } from 'next';
import Link from 'next/link';
import { ExportKeyButton } from '@/components/account/export-key-form';
import { hasPin } from '@/lib/accounts/pin-status';
import { requireUser } from '@/lib/auth/session';
import { listWalletExports } from '@/lib/wallets/export-private-key';
import { listWallets } from '@/lib/wallets/list-wallets';

export const metadata: Metadata = { title: 'Wallets' };

export default async function WalletsPage() {
  const user = await requireUser({ returnTo: '/account/wallets' });
  const [wallets, exports, pinIsSet] = await Promise.all([listWallets(user.id), listWalletExports(user.id), hasPin(user.id)]);
  return (
    <div className="flex flex-col gap-8">
      <section>
        <h1 className="text-2xl font-semibold">Wallets</h1>
        <p className="mt-1 text-sm text-slate-600">
          Plain wallets (one key each) held for you by Chargeport, encrypted at rest. Exporting a key needs your PIN and is recorded.
        </p>
        <p className="mt-1 text-sm text-slate-600" data-testid="export-delegation-note">
          On Polygon and BNB Smart Chain your EVM wallet is a smart account (an EIP-7702 delegation, so Chargeport can pay its fees):
          MetaMask shows that delegation when you import the key, and you can switch it back to a standard account there.
        </p>
        <ul className="mt-4 flex flex-col gap-3">
          {wallets.map((wallet) => (
            <li
              key={wallet.id}
              className="flex flex-col gap-3 rounded-xl bg-white p-4 shadow-sm ring-1 ring-slate-200 sm:flex-row sm:items-center"
            >
              <div className="min-w-0 flex-1">
                <p className="text-sm font-medium">{wallet.family === 'evm' ? 'EVM wallet' : 'Solana wallet'}</p>
                <p className="break-all font-mono text-sm">{wallet.address}</p>
              </div>
              {pinIsSet ? (
                <ExportKeyButton walletId={wallet.id} label={wallet.family === 'evm' ? 'EVM wallet' : 'Solana wallet'} />
              ) : (
                // Spec rule 5: no export without a PIN; send the user to set one.
                <Link
                  href="/account/pin?next=/account/wallets"
                  className="text-sm font-semibold text-brand-600 underline underline-offset-4"
                >
                  Set a PIN to export
                </Link>
              )}
            </li>
          ))}
        </ul>
      </section>
      <section>
        <h2 className="text-lg font-semibold">Key exports</h2>
        {exports.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">No key has been exported.</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-200 text-sm" data-testid="exports">
            {exports.map((record) => (
              <li key={record.id} className="py-2">
                {record.family === 'evm' ? 'EVM' : 'Solana'} wallet · {record.createdAt.toLocaleString()} · from{' '}
                {record.ip ?? 'unknown address'}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
