/**
 * A fulfilment's life (lib/contracts/):
 *
 *   pending ──► submitted ──► succeeded
 *      │            └───────► failed ──► pending   (the merchant's retry)
 *      └────────────────────► failed               (arguments could not be bound, the call would revert, …)
 *
 * `pending`: to start (no transfer of this attempt yet). `submitted`: its contract call is recorded with
 * the transaction engine, which broadcasts and follows it. `succeeded` is final; `failed` moved nothing
 * (a reverted call costs only gas) and may be retried.
 */
import { defineStateMachine } from '@/lib/state-machine';

export const FULFILMENT_STATUSES = ['pending', 'submitted', 'succeeded', 'failed'] as const;
export type FulfilmentStatus = (typeof FULFILMENT_STATUSES)[number];

export const fulfilmentMachine = defineStateMachine<FulfilmentStatus>({
  name: 'fulfilment',
  statuses: FULFILMENT_STATUSES,
  transitions: {
    pending: ['submitted', 'failed'],
    submitted: ['succeeded', 'failed'],
    succeeded: [],
    failed: ['pending'],
  },
});
