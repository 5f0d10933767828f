/**
 * An in-app payment request's life (lib/oauth/payment-requests.ts):
 *
 *   pending ──► confirmed   (the user confirmed with the PIN and the payment was made)
 *      ├──────► declined    (the user said no)
 *      └──────► expired     (nobody decided before expiresAt: read as expired, never written)
 *
 * Every decision is a guarded UPDATE … WHERE status IN (paymentRequestMachine.leadingTo(to)), so a request
 * is decided once.
 */
import { defineStateMachine } from '@/lib/state-machine';

export const PAYMENT_REQUEST_STATUSES = ['pending', 'confirmed', 'declined', 'expired'] as const;
export type PaymentRequestStatus = (typeof PAYMENT_REQUEST_STATUSES)[number];

export const paymentRequestMachine = defineStateMachine({
  name: 'payment request',
  statuses: PAYMENT_REQUEST_STATUSES,
  transitions: {
    pending: ['confirmed', 'declined', 'expired'],
    confirmed: [],
    declined: [],
    expired: [],
  },
});
