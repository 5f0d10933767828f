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
export const FULFILMENT_STATUSES = ['pending', 'submitted', 'succeeded', 'failed'] as const;
export type FulfilmentStatus = (typeof FULFILMENT_STATUSES)[number];

const TRANSITIONS: Readonly<Record<FulfilmentStatus, readonly FulfilmentStatus[]>> = {
  pending: ['submitted', 'failed'],
  submitted: ['succeeded', 'failed'],
  succeeded: [],
  failed: ['pending'],
};

function canTransition(from: FulfilmentStatus, to: FulfilmentStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Statuses from which `to` can be reached in one step (for guarded UPDATE … WHERE status IN (…)). */
export function statusesLeadingTo(to: FulfilmentStatus): FulfilmentStatus[] {
  return FULFILMENT_STATUSES.filter((from) => canTransition(from, to));
}
