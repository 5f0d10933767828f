/**
 * How a transfer's end reaches the code that started it. The engine knows no refund, swap or charge: the
 * caller of the reconciler hands it one hook per purpose (lib/jobs/transfer-outcome-hooks.ts), and the
 * reconciler runs it in the transaction that records the end, so it happens exactly once.
 */
import type { TransactionReceipt } from 'viem';
import type { DbOrTx } from '@/lib/db/client';
import type { OutboundTransferRow } from '@/lib/db/schema';
import type { TransferPurpose } from './state';

export interface TransferOutcome {
  status: 'confirmed' | 'failed';
  reason?: string;
  receipt?: TransactionReceipt;
}

export type TransferOutcomeHook = (tx: DbOrTx, transfer: OutboundTransferRow, outcome: TransferOutcome) => Promise<void>;

/**
 * A transfer confirmed once, re-opened by a deep re-organisation (./reopen-confirmed-transfers.ts), that
 * ended `failed`: what it moved is no longer moved. Its purpose's hook ran when it was confirmed and is not
 * run again; this one records the reversal where its owner looks (the charge's timeline), in the
 * transaction that ends it.
 */
export type TransferReversedHook = (tx: DbOrTx, transfer: OutboundTransferRow, reason: string) => Promise<void>;

/** The purposes whose end must be told to their owner: a reconciler without their hook does not finish them. */
export const PURPOSES_WITH_OUTCOME = ['balance_payment', 'swap', 'refund', 'fulfilment'] as const satisfies readonly TransferPurpose[];
type PurposeWithOutcome = (typeof PURPOSES_WITH_OUTCOME)[number];

/** Every purpose's hook: what the background reconciler runs with. */
export type TransferOutcomeHooks = Record<PurposeWithOutcome, TransferOutcomeHook>;

/**
 * The hook for a transfer that just ended. A caller that reconciles on the spot with fewer hooks (a wallet
 * send, brought up to date for its page) cannot finish a transfer it has no hook for: the error rolls the
 * ending back and the background reconciler, which has them all, finishes it.
 */
export function outcomeHookFor(hooks: Partial<TransferOutcomeHooks>, purpose: TransferPurpose): TransferOutcomeHook | undefined {
  if (!(PURPOSES_WITH_OUTCOME as readonly string[]).includes(purpose)) return undefined;
  const hook = hooks[purpose as PurposeWithOutcome];
  if (!hook) throw new Error(`no outcome hook for a ${purpose} transfer: only a reconciler given one may finish it`);
  return hook;
}
