/**
 * The payment state machine — the only place that says which status a payment (a transfer seen on chain into a
 * charge's deposit address) may take next. The statuses are the scanner's (lib/scanner/state.ts):
 *
 *   pending ──► confirmed   (its block is deep enough; on Solana, finalized)
 *      │  ▲  ◄──┘           (re-organised deeper than the depth, or re-included in another block: confirm again)
 *      ▼  │
 *   dropped ──► confirmed   (Solana: a dropped signature found finalized after all)
 *              (dropped ──► pending: found again on chain)
 *
 * A confirmed payment is never dropped directly: only pending ones are re-checked. Every status write of a
 * payment goes through transition-payments.ts, a guarded UPDATE whose `WHERE status IN (…)` comes from here.
 */
import { PAYMENT_STATUSES, type PaymentStatus } from '@/lib/db/schema';

const TRANSITIONS: Readonly<Record<PaymentStatus, readonly PaymentStatus[]>> = {
  pending: ['confirmed', 'dropped'],
  confirmed: ['pending'],
  dropped: ['pending', 'confirmed'],
};

export function canPaymentTransition(from: PaymentStatus, to: PaymentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Statuses from which `to` can be reached in one step (for guarded UPDATE … WHERE status IN (…)). */
export function paymentStatusesLeadingTo(to: PaymentStatus): PaymentStatus[] {
  return PAYMENT_STATUSES.filter((from) => canPaymentTransition(from, to));
}

export class IllegalPaymentTransitionError extends Error {
  override name = 'IllegalPaymentTransitionError';
  constructor(
    readonly paymentId: string,
    readonly from: PaymentStatus,
    readonly to: PaymentStatus,
  ) {
    super(`Payment ${paymentId} cannot go from ${from} to ${to}`);
  }
}
