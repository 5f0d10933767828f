import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { AutoRefresh } from '@/components/wallet/auto-refresh';
import { StatusPill } from '@/components/wallet/status-pill';
import { requireUser } from '@/lib/auth/session';
import { getWalletSend } from '@/lib/wallets/get-wallet-send';

export const metadata: Metadata = { title: 'Send' };

/** A send's result: its status (followed until the chain confirms it) and the transaction. */
export default async function SendResultPage({ params }: { params: Promise<{ sendId: string }> }) {
  const { sendId } = await params;
  const user = await requireUser({ returnTo: `/wallet/send/${sendId}` });
  const send = await getWalletSend({ userId: user.id, sendId });
  if (!send) notFound();
  return (
    <div className="flex max-w-xl flex-col gap-4" data-testid="send-result" data-status={send.status}>
      {send.status === 'pending' && <AutoRefresh everyMs={3_000} />}
      <h1 className="text-2xl font-semibold">
        {send.status === 'failed' ? 'The send failed' : send.status === 'completed' ? 'Sent' : 'Sending'}
      </h1>
      <dl className="grid grid-cols-[7rem_1fr] gap-y-2 rounded-xl bg-white p-5 text-sm ring-1 ring-slate-200">
        <dt className="text-slate-500">Status</dt>
        <dd>
          <StatusPill status={send.status} label={send.statusLabel} />
        </dd>
        <dt className="text-slate-500">Amount</dt>
        <dd className="font-mono break-all">
          {send.amount} {send.symbol}
        </dd>
        <dt className="text-slate-500">Network</dt>
        <dd>{send.chainDisplayName}</dd>
        <dt className="text-slate-500">To</dt>
        <dd className="font-mono break-all">{send.toAddress}</dd>
        <dt className="text-slate-500">Transaction</dt>
        <dd className="font-mono break-all" data-testid="send-tx">
          {send.txHash}
        </dd>
      </dl>
      {send.explorerUrl ? (
        <a
          href={send.explorerUrl}
          target="_blank"
          rel="noreferrer"
          className="text-sm font-semibold text-brand-700 underline underline-offset-4"
        >
          View on the block explorer
        </a>
      ) : (
        <p className="text-sm text-slate-600">
          This network runs on a local development node: no public block explorer knows this transaction.
        </p>
      )}
      {send.status === 'failed' && (
        <p className="text-sm text-slate-700">Nothing left your wallet except, possibly, the network fee. You can send again.</p>
      )}
      <div className="flex gap-4 text-sm font-semibold">
        <Link href="/wallet/activity" className="text-brand-700 underline underline-offset-4">
          See it in Activity
        </Link>
        <Link href="/wallet/send" className="text-brand-700 underline underline-offset-4">
          Send more
        </Link>
      </div>
    </div>
  );
}
