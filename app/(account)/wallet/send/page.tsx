import type { Metadata } from 'next';
import Link from 'next/link';
import { SendForm } from '@/components/wallet/send-form';
import { hasPin } from '@/lib/accounts/pin-status';
import { requireUser } from '@/lib/auth/session';
import { sendOptions } from '@/lib/wallets/send-options';

export const metadata: Metadata = { title: 'Send' };

/** Send to an external address: token and network, recipient, amount; the fee shown before the PIN. */
export default async function SendPage({ searchParams }: { searchParams: Promise<{ token?: string | string[] }> }) {
  const user = await requireUser({ returnTo: '/wallet/send' });
  const [{ from, solanaFrom, options }, pinIsSet, params] = await Promise.all([sendOptions(user.id), hasPin(user.id), searchParams]);
  const token = typeof params.token === 'string' ? params.token.toLowerCase() : undefined;
  const wanted = token ? options.find((option) => option.value.toLowerCase() === token)?.value : undefined;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold">Send</h1>
        <p className="mt-1 text-sm text-slate-600">
          From your EVM wallet <span className="break-all font-mono text-xs">{from}</span> to any address on the same network. The network
          fee is paid from the network&rsquo;s own coin (POL on Polygon, BNB on BNB Smart Chain, JEWEL on DFK Chain), or by Chargeport where
          your wallet is a smart account, and shown before you confirm.
        </p>
        {solanaFrom && (
          <p className="mt-1 text-sm text-slate-600" data-testid="solana-send-note">
            On Solana from your Solana wallet <span className="break-all font-mono text-xs">{solanaFrom}</span>: Chargeport pays the network
            fee, so it needs no SOL for fees.
          </p>
        )}
      </div>
      {!pinIsSet ? (
        <p className="text-sm">
          Sending needs your PIN.{' '}
          <Link href="/account/pin?next=/wallet/send" className="font-semibold text-brand-700 underline underline-offset-4">
            Set a PIN
          </Link>
        </p>
      ) : options.length === 0 ? (
        <p className="text-sm text-slate-600">No network is connected right now. Try again shortly.</p>
      ) : (
        <SendForm options={options} defaultToken={wanted} />
      )}
    </div>
  );
}
