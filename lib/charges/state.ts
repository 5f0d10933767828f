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
export const CHARGE_STATUSES = ['pending', 'processing', 'succeeded', 'failed', 'expired', 'canceled'] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

const TRANSITIONS: Readonly<Record<ChargeStatus, readonly ChargeStatus[]>> = {
  pending: ['processing', 'expired', 'canceled'],
  processing: ['succeeded', 'failed'],
  succeeded: [],
  failed: [],
  expired: [],
  canceled: [],
};

export function canTransition(from: ChargeStatus, to: ChargeStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isFinal(status: ChargeStatus): boolean {
  return TRANSITIONS[status].length === 0;
}

/** Statuses from which `to` can be reached in one step (used in guarded UPDATE … WHERE status IN (…)). */
export function statusesLeadingTo(to: ChargeStatus): ChargeStatus[] {
  return CHARGE_STATUSES.filter((from) => canTransition(from, to));
}

export class IllegalTransitionError extends Error {
  override name = 'IllegalTransitionError';
  constructor(
    readonly from: ChargeStatus,
    readonly to: ChargeStatus,
  ) {
    super(`A charge cannot go from ${from} to ${to}`);
  }
}

export function assertTransition(from: ChargeStatus, to: ChargeStatus): void {
  if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
}
