/**
 * A refund's status on the wire, read from what is stored: its claim while it has no transfer, else its
 * transfer's status (the transaction engine's, lib/transactions/state.ts), in the words of refundMachine.
 */
import type { TransferStatus } from '@/lib/transactions/state';
import type { RefundClaimStatus, RefundStatus } from './state';

const STATUS_OF_TRANSFER: Record<TransferStatus, RefundStatus> = {
  signed: 'pending',
  broadcast: 'submitted',
  included: 'submitted',
  confirmed: 'succeeded',
  failed: 'failed',
};

/** The status on the wire: the claim's while it has no transfer, else its transfer's. */
export function refundStatusOf(input: { claimStatus: RefundClaimStatus | null; transferStatus: TransferStatus | null }): RefundStatus {
  if (input.transferStatus) return STATUS_OF_TRANSFER[input.transferStatus];
  return input.claimStatus === 'expired' ? 'expired' : 'awaiting_claim';
}
