/**
 * A send's result page (/wallet/send/[sendId]): the user's own send only, brought up to date with the chain
 * when it is still open (what the reconciler would do next, done now), in the words the page shows.
 */
import { and, eq } from 'drizzle-orm';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { explorerLink } from '@/lib/chains/explorer-link';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, walletSends, type TransferStatus } from '@/lib/db/schema';
import { isIdOf } from '@/lib/ids';
import { formatAmount } from '@/lib/money';
import { reconcileTransfer } from '@/lib/transactions/reconcile-transfers';
import { isOpen } from '@/lib/transactions/state';

export interface WalletSendView {
  sendId: string;
  status: 'pending' | 'completed' | 'failed';
  statusLabel: string;
  chain: ChainName;
  chainDisplayName: string;
  amount: string;
  symbol: string;
  toAddress: string;
  txHash: string;
  explorerUrl?: string;
  createdAt: Date;
}

const SEND_STATUS: Record<TransferStatus, { status: WalletSendView['status']; label: string }> = {
  signed: { status: 'pending', label: 'Sending' },
  broadcast: { status: 'pending', label: 'Sent to the network, waiting to be confirmed' },
  included: { status: 'pending', label: 'In a block, waiting for confirmations' },
  confirmed: { status: 'completed', label: 'Confirmed' },
  failed: { status: 'failed', label: 'Failed' },
};

/** A send of the user, brought up to date with the chain; undefined when it is not theirs. */
export async function getWalletSend(input: { userId: string; sendId: string }): Promise<WalletSendView | undefined> {
  if (!isIdOf('walletSend', input.sendId)) return undefined;
  const [row] = await getDb()
    .select({ send: walletSends, transfer: outboundTransfers })
    .from(walletSends)
    .innerJoin(outboundTransfers, eq(outboundTransfers.id, walletSends.transferId))
    .where(and(eq(walletSends.id, input.sendId), eq(walletSends.userId, input.userId)));
  if (!row) return undefined;
  const { transfer } = row;
  const chain = transfer.chain as ChainName;
  // What the background reconciler would do next, done now so the page shows the chain's answer (a wallet
  // send has no outcome hook).
  const status = isOpen(transfer.status) ? await reconcileTransfer(transfer, { hooks: {} }).catch(() => transfer.status) : transfer.status;
  const token = CHAINS[chain].tokens.find((t) => t.address.toLowerCase() === transfer.tokenAddress.toLowerCase())!;
  return {
    sendId: input.sendId,
    status: SEND_STATUS[status].status,
    statusLabel: SEND_STATUS[status].label,
    chain,
    chainDisplayName: CHAINS[chain].displayName,
    amount: formatAmount(transfer.amountBaseUnits, token.decimals),
    symbol: token.symbol,
    toAddress: transfer.toAddress,
    txHash: transfer.txHash,
    explorerUrl: explorerLink(chain, transfer.txHash),
    createdAt: transfer.createdAt,
  };
}
