/**
 * The on-ramp order's status machine, in one place:
 *
 *   created ──► pending ──► completed
 *      │           └──────► failed
 *      ├──────────────────► completed | failed   (a provider may report the outcome first)
 *      └──────────────────► expired              (nobody started the purchase in time)
 *
 * Provider updates only move an order forward: a late or duplicated "pending" after "completed"
 * changes nothing, and an order that has ended never changes again.
 */
import { ONRAMP_ORDER_STATUSES, type OnrampOrderStatusName } from '@/lib/db/schema';

export type { OnrampOrderStatusName };

const TRANSITIONS: Readonly<Record<OnrampOrderStatusName, readonly OnrampOrderStatusName[]>> = {
  created: ['pending', 'completed', 'failed', 'expired'],
  pending: ['completed', 'failed'],
  completed: [],
  failed: [],
  expired: [],
};

/** Whether an order in `from` may move to `to`. */
export function canTransition(from: OnrampOrderStatusName, to: OnrampOrderStatusName): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Statuses from which `to` can be reached in one step (for guarded UPDATE … WHERE status IN (…)). */
export function statusesLeadingTo(to: OnrampOrderStatusName): OnrampOrderStatusName[] {
  return ONRAMP_ORDER_STATUSES.filter((from) => canTransition(from, to));
}
