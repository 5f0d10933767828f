/** The steps test/faults/run-step.mts can run in a process of its own (and die in). */
import type { WithdrawalInput } from '@/lib/merchants/withdraw';
import type { RefundContext } from '@/lib/refunds/create-refund';
import type { SendRequest } from '@/lib/wallets/schemas';
import type { swapHeldFunds } from '@/lib/swap/swap-held-funds';

export type Step =
  | { op: 'pay'; userId: string; chargeId: string; pin: string }
  | { op: 'withdraw'; input: WithdrawalInput }
  | { op: 'send'; input: SendRequest & { userId: string; sendId: string; pin: string } }
  | { op: 'refund'; ctx: RefundContext; chargeId: string; idempotencyKey: string }
  | { op: 'claim'; token: string; to: { address: string } }
  | { op: 'sweep'; chargeId: string }
  | { op: 'sweepBatch'; chargeIds: string[] }
  | { op: 'swap'; input: Parameters<typeof swapHeldFunds>[0] }
  | { op: 'reconcile'; rounds: number; pauseMs: number };
