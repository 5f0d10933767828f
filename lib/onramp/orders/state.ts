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
import { defineStateMachine } from '@/lib/state-machine';

export const ONRAMP_ORDER_STATUSES = ['created', 'pending', 'completed', 'failed', 'expired'] as const;
export type OnrampOrderStatusName = (typeof ONRAMP_ORDER_STATUSES)[number];

export const onrampOrderMachine = defineStateMachine({
  name: 'on-ramp order',
  statuses: ONRAMP_ORDER_STATUSES,
  transitions: {
    created: ['pending', 'completed', 'failed', 'expired'],
    pending: ['completed', 'failed'],
    completed: [],
    failed: [],
    expired: [],
  },
});
