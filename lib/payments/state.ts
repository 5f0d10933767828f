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
import { defineStateMachine } from '@/lib/state-machine';

/**
 * The block scanner's statuses (lib/scanner/state.ts: it observes the transfer), listed here so this file imports
 * only the foundation; the scanner's consumer (poll-chain.ts) hands its statuses to transitionPayments, so the two
 * lists cannot drift apart without a type error.
 */
export const PAYMENT_STATUSES = ['pending', 'confirmed', 'dropped'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const paymentMachine = defineStateMachine({
  name: 'payment',
  statuses: PAYMENT_STATUSES,
  transitions: {
    pending: ['confirmed', 'dropped'],
    confirmed: ['pending'],
    dropped: ['pending', 'confirmed'],
  },
});
