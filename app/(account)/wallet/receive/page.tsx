import type { Metadata } from 'next';
import QRCode from 'qrcode';
import { CopyButton } from '@/components/ui/copy-button';
import { requireUser } from '@/lib/auth/session';
import { CHAINS } from '@/lib/chains/registry';
import { listWallets } from '@/lib/wallets/list-wallets';

export const metadata: Metadata = { title: 'Receive' };

/** Receive: each wallet address with the networks it receives on, as text, a QR code and a copy button. */
export default async function ReceivePage() {
  const user = await requireUser({ returnTo: '/wallet/receive' });
  const wallets = await listWallets(user.id);
  // The plain address: every wallet app reads it, whichever network the sender picks.
  const qrCodes = await Promise.all(wallets.map((wallet) => QRCode.toString(wallet.address, { type: 'svg', margin: 1, width: 176 })));
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold">Receive</h1>
        <p className="mt-1 text-sm text-slate-600">
          Send tokens to these addresses. Use a network listed under the address: tokens sent on another network may be lost.
        </p>
      </div>
      {wallets.map((wallet, i) => (
        <section
          key={wallet.id}
          className="flex flex-col gap-3 rounded-xl bg-white p-5 ring-1 ring-slate-200 sm:flex-row sm:items-start"
          data-testid="receive-wallet"
          data-family={wallet.family}
        >
          <div
            className="mx-auto size-44 shrink-0"
            role="img"
            aria-label={`QR code of your ${wallet.family === 'evm' ? 'EVM' : 'Solana'} address`}
            data-testid="receive-qr"
            dangerouslySetInnerHTML={{ __html: qrCodes[i]! }}
          />
          <div className="flex min-w-0 flex-1 flex-col gap-2">
            <h2 className="font-semibold">{wallet.family === 'evm' ? 'EVM wallet' : 'Solana wallet'}</h2>
            <p className="break-all rounded-lg bg-slate-100 p-2 font-mono text-sm" data-testid="receive-address">
              {wallet.address}
            </p>
            <CopyButton text={wallet.address} />
            <p className="text-xs text-slate-600">Networks: {wallet.chains.map((chain) => CHAINS[chain].displayName).join(' · ')}</p>
          </div>
        </section>
      ))}
    </div>
  );
}
