/**
 * What each purpose does when one of its transfers ends, run by the reconciler in the transaction that
 * records the end (so it happens exactly once): a failed balance payment is reported to the merchant
 * (`payment.failed`, the charge stays payable); a swap's outcome is recorded on its execution and the
 * charge's timeline; a refund's on the refund, with its webhook; a fulfilment's contract call on the
 * fulfilment (lib/contracts/), with its webhook. Other purposes read their transfer's status directly.
 */
import type { TransactionReceipt } from 'viem';
import type { DbOrTx } from '@/lib/db/client';
import type { OutboundTransferRow } from '@/lib/db/schema';
import { settleFulfilmentTransfer } from '@/lib/contracts/settle-fulfilment';
import { settleRefundTransfer } from '@/lib/refunds/settle-refund';
import { settleSwapTransfer } from '@/lib/swap/execute-swap';
import { emitPaymentFailed } from '@/lib/webhooks/emit';
import type { TransferPurpose } from './state';

export interface TransferOutcome {
  status: 'confirmed' | 'failed';
  reason?: string;
  receipt?: TransactionReceipt;
}

type Hook = (tx: DbOrTx, transfer: OutboundTransferRow, outcome: TransferOutcome) => Promise<void>;

export const PURPOSE_HOOKS: Partial<Record<TransferPurpose, Hook>> = {
  balance_payment: async (tx, transfer, outcome) => {
    if (outcome.status !== 'failed' || !transfer.chargeId) return;
    await emitPaymentFailed(tx, {
      chargeId: transfer.chargeId,
      attempt: { id: transfer.id, method: 'balance', chain: transfer.chain, txHash: transfer.txHash, reason: outcome.reason ?? 'failed' },
    });
  },
  swap: settleSwapTransfer,
  refund: settleRefundTransfer,
  fulfilment: settleFulfilmentTransfer,
};
