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
import type { OnrampOrderStatusName } from '@/lib/db/schema';

export type { OnrampOrderStatusName };

const RANK: Record<OnrampOrderStatusName, number> = { created: 0, pending: 1, completed: 2, failed: 2, expired: 2 };

/** Whether an order in `from` may move to `to`. */
export function canTransition(from: OnrampOrderStatusName, to: OnrampOrderStatusName): boolean {
  if (to === 'expired') return from === 'created';
  return RANK[to] > RANK[from];
}
