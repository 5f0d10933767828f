/**
 * A refund's statuses, in one place.
 *
 * A refund to a known payer is one transfer of the engine from the start; its status is read from that
 * transfer (pending → submitted → succeeded | failed; refund-status-of.ts). A refund whose payer must choose where it goes
 * (a claim link: the sender was an on-ramp provider, a contract, several addresses or unknown) first
 * waits for the payer:
 *
 *   awaiting_claim ──► claimed ──► (its transfer: pending → submitted → succeeded | failed)
 *         └──────────► expired      (nobody claimed it within REFUND_CLAIM_TTL_DAYS: refundable again)
 *
 * While `awaiting_claim` its amount is reserved (counted as refunded), so nothing is refunded twice.
 * The stored claim status changes only through the guarded UPDATE … WHERE claim_status IN
 * (refundClaimMachine.leadingTo(to)) of the claim verbs.
 */
import { defineStateMachine } from '@/lib/state-machine';

export const REFUND_CLAIM_STATUSES = ['awaiting_claim', 'claimed', 'expired'] as const;
export type RefundClaimStatus = (typeof REFUND_CLAIM_STATUSES)[number];

export const refundClaimMachine = defineStateMachine({
  name: 'refund claim',
  statuses: REFUND_CLAIM_STATUSES,
  transitions: {
    awaiting_claim: ['claimed', 'expired'],
    claimed: [],
    expired: [],
  },
});

/** The refund's status on the wire. */
export const REFUND_STATUSES = ['awaiting_claim', 'expired', 'pending', 'submitted', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** The moves a refund may be seen making on the wire (derived from its claim and its transfer, never stored). */
export const refundMachine = defineStateMachine({
  name: 'refund',
  statuses: REFUND_STATUSES,
  transitions: {
    awaiting_claim: ['pending', 'expired'],
    expired: [],
    pending: ['submitted', 'succeeded', 'failed'],
    submitted: ['succeeded', 'failed'],
    succeeded: [],
    failed: [],
  },
});

/** Whether a refund holds its amount (counts as refunded): not failed and not expired. */
export function holdsRefundAmount(status: RefundStatus): boolean {
  return status !== 'failed' && status !== 'expired';
}
