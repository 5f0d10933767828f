/**
 * What each purpose does when one of its transfers ends, run by the reconciler in the transaction that
 * records the end (so it happens exactly once): a failed balance payment is reported to the merchant
 * (`payment.failed`, the charge stays payable, no longer marked paid under an allowance); a swap's outcome
 * is recorded on its execution and the charge's timeline; a refund's on the refund, with its webhook; a
 * fulfilment's contract call on the fulfilment (lib/contracts/), with its webhook. Other purposes read their
 * transfer's status directly. A transfer confirmed once and reversed by a deep re-organisation is written on
 * its charge's timeline instead (lib/charges/record-transfer-reversed.ts, docs/adr/0036).
 *
 * The table lives here, above the domains, so the transfer engine below them imports none of them.
 */
import { settleFulfilmentTransfer } from '@/lib/contracts/settle-fulfilment';
import { settleRefundTransfer } from '@/lib/refunds/settle-refund';
import { settleSwapTransfer } from '@/lib/swap/settle-swap-transfer';
import { reconcileTransfers, type ReconcileOptions } from '@/lib/transactions/reconcile-transfers';
import type { TransferOutcomeHooks } from '@/lib/transactions/transfer-outcome';
import { emitPaymentFailed } from '@/lib/charges/charge-events';
import { recordTransferReversed } from '@/lib/charges/record-transfer-reversed';
import { recordAllowanceUse } from '@/lib/allowances/record-allowance-use';

export const TRANSFER_OUTCOME_HOOKS: TransferOutcomeHooks = {
  balance_payment: async (tx, transfer, outcome) => {
    if (outcome.status !== 'failed' || !transfer.chargeId) return;
    // It moved nothing: the charge is no longer paid under an allowance (a PIN or wallet payment may follow).
    await recordAllowanceUse(tx, { chargeId: transfer.chargeId, allowanceId: null });
    await emitPaymentFailed(tx, {
      chargeId: transfer.chargeId,
      attempt: { id: transfer.id, method: 'balance', chain: transfer.chain, txHash: transfer.txHash, reason: outcome.reason ?? 'failed' },
    });
  },
  swap: settleSwapTransfer,
  refund: settleRefundTransfer,
  fulfilment: settleFulfilmentTransfer,
};

/** One pass of the transfer reconciler over the transfers due now, with every purpose's hook. */
export function reconcileDueTransfers(options: Omit<ReconcileOptions, 'hooks'> = {}): Promise<number> {
  return reconcileTransfers({ ...options, hooks: TRANSFER_OUTCOME_HOOKS, onReversed: recordTransferReversed });
}
