/**
 * The charge state machine — the only place that says which status may follow which.
 *
 *   pending ──► processing ──► succeeded
 *      │             └───────► failed      (still underpaid at expiry, or the payment failed)
 *      ├──► expired   (nobody paid before expiresAt, and no payment of it in flight: payment-in-flight.ts)
 *      └──► canceled  (consumer or merchant canceled)
 *
 * `succeeded`, `failed`, `expired` and `canceled` are final.
 */
import { defineStateMachine } from '@/lib/state-machine';

export const CHARGE_STATUSES = ['pending', 'processing', 'succeeded', 'failed', 'expired', 'canceled'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

export const chargeMachine = defineStateMachine({
  name: 'charge',
  statuses: CHARGE_STATUSES,
  transitions: {
    pending: ['processing', 'expired', 'canceled'],
    processing: ['succeeded', 'failed'],
    succeeded: [],
    failed: [],
    expired: [],
    canceled: [],
  },
});
