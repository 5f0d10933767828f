/**
 * Every status machine, enumerated: for each pair (from, to) of a domain's statuses, its state.ts
 * allows the move exactly when the table below (the documented machine) lists it. A transition added
 * or removed in code without changing the documented table fails here.
 */
import { describe, expect, it } from 'vitest';
import { CHARGE_STATUSES, canTransition as canChargeTransition } from '@/lib/charges/state';
import { FULFILMENT_STATUSES, statusesLeadingTo as fulfilmentStatusesLeadingTo } from '@/lib/contracts/state';
import { ONRAMP_ORDER_STATUSES, PAYMENT_STATUSES, WEBHOOK_DELIVERY_STATUSES } from '@/lib/db/schema';
import { canTransition as canOrderTransition, statusesLeadingTo as orderStatusesLeadingTo } from '@/lib/onramp/orders/state';
import { canPaymentTransition, paymentStatusesLeadingTo } from '@/lib/payments/state';
import {
  REFUND_CLAIM_STATUSES,
  REFUND_STATUSES,
  canRefundTransition,
  claimStatusesLeadingTo,
  holdsRefundAmount,
  refundStatusOf,
} from '@/lib/refunds/state';
import { SWAP_EXECUTION_STATUSES, swapStatusesLeadingTo } from '@/lib/swap/state';
import { TRANSFER_STATUSES, canTransition as canTransferTransition } from '@/lib/transactions/state';
import { canDeliveryTransition, deliveryStatusesLeadingTo } from '@/lib/webhooks/state';

function pairsOf<S extends string>(statuses: readonly S[]): [S, S][] {
  return statuses.flatMap((from) => statuses.map((to) => [from, to] as [S, S]));
}

/** `allowed(from, to)` agrees with `expected` on every pair, and `leadingTo(to)` lists exactly the allowed froms. */
function expectMachine<S extends string>(
  statuses: readonly S[],
  expected: Record<S, readonly S[]>,
  allowed: (from: S, to: S) => boolean,
): void {
  expect(Object.keys(expected).sort()).toEqual([...statuses].sort());
  for (const [from, to] of pairsOf(statuses)) {
    expect(allowed(from, to), `${from} → ${to}`).toBe(expected[from].includes(to));
  }
}

function allowedFrom<S extends string>(leadingTo: (to: S) => readonly S[]): (from: S, to: S) => boolean {
  return (from, to) => leadingTo(to).includes(from);
}

describe('status machines: every allowed transition is allowed, every other is refused', () => {
  it('charges', () => {
    expectMachine(
      CHARGE_STATUSES,
      {
        pending: ['processing', 'expired', 'canceled'],
        processing: ['succeeded', 'failed'],
        succeeded: [],
        failed: [],
        expired: [],
        canceled: [],
      },
      canChargeTransition,
    );
  });

  it('payments (transfers seen on chain into a deposit address)', () => {
    const expected = { pending: ['confirmed', 'dropped'], confirmed: ['pending'], dropped: ['pending', 'confirmed'] } as const;
    expectMachine(PAYMENT_STATUSES, expected, canPaymentTransition);
    expectMachine(PAYMENT_STATUSES, expected, allowedFrom(paymentStatusesLeadingTo));
  });

  it('transfers (lib/transactions)', () => {
    expectMachine(
      TRANSFER_STATUSES,
      {
        signed: ['broadcast', 'included', 'failed'],
        broadcast: ['included', 'failed'],
        included: ['confirmed', 'failed', 'broadcast'],
        confirmed: [],
        failed: [],
      },
      canTransferTransition,
    );
  });

  it('swap executions', () => {
    expectMachine(
      SWAP_EXECUTION_STATUSES,
      { signed: ['broadcast', 'confirmed', 'failed'], broadcast: ['confirmed', 'failed'], confirmed: [], failed: [] },
      allowedFrom(swapStatusesLeadingTo),
    );
  });

  it('on-ramp orders', () => {
    const expected = {
      created: ['pending', 'completed', 'failed', 'expired'],
      pending: ['completed', 'failed'],
      completed: [],
      failed: [],
      expired: [],
    } as const;
    expectMachine(ONRAMP_ORDER_STATUSES, expected, canOrderTransition);
    expectMachine(ONRAMP_ORDER_STATUSES, expected, allowedFrom(orderStatusesLeadingTo));
  });

  it('webhook deliveries', () => {
    const expected = {
      held: ['pending'],
      pending: ['sending', 'canceled'],
      sending: ['sending', 'succeeded', 'failed', 'canceled'],
      succeeded: [],
      failed: [],
      canceled: [],
    } as const;
    expectMachine(WEBHOOK_DELIVERY_STATUSES, expected, canDeliveryTransition);
    expectMachine(WEBHOOK_DELIVERY_STATUSES, expected, allowedFrom(deliveryStatusesLeadingTo));
  });

  it('fulfilments', () => {
    expectMachine(
      FULFILMENT_STATUSES,
      { pending: ['submitted', 'failed'], submitted: ['succeeded', 'failed'], succeeded: [], failed: ['pending'] },
      allowedFrom(fulfilmentStatusesLeadingTo),
    );
  });

  it('refunds: the claim link (stored) and the status on the wire', () => {
    expectMachine(
      REFUND_CLAIM_STATUSES,
      { awaiting_claim: ['claimed', 'expired'], claimed: [], expired: [] },
      allowedFrom(claimStatusesLeadingTo),
    );
    expectMachine(
      REFUND_STATUSES,
      {
        awaiting_claim: ['pending', 'expired'],
        expired: [],
        pending: ['submitted', 'succeeded', 'failed'],
        submitted: ['succeeded', 'failed'],
        succeeded: [],
        failed: [],
      },
      canRefundTransition,
    );
    // A claim link without its transfer holds its amount until it expires; a failed transfer holds nothing.
    expect(refundStatusOf({ claimStatus: 'awaiting_claim', transferStatus: null })).toBe('awaiting_claim');
    expect(refundStatusOf({ claimStatus: 'expired', transferStatus: null })).toBe('expired');
    expect(refundStatusOf({ claimStatus: 'claimed', transferStatus: 'broadcast' })).toBe('submitted');
    expect(REFUND_STATUSES.filter((status) => !holdsRefundAmount(status))).toEqual(['expired', 'failed']);
  });
});
