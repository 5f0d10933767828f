/**
 * One step of moving money, run as its own process by the fault suite so that it can die by SIGKILL at a
 * named crash point (CHARGEPORT_CRASH_AT, see lib/crash-points.ts) — the app or worker process killed
 * mid-way. Prints the step's result as JSON when it survives.
 *
 *   node --conditions=react-server --import tsx test/faults/run-step.mts '<json step>'   (env: the suite's)
 */
import { closeDb } from '@/lib/db/client';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { sweepBatch, sweepCharge } from '@/lib/payments/sweep-charges';
import { swapHeldFunds } from '@/lib/swap/swap-held-funds';
import { claimRefund } from '@/lib/refunds/claim-refund';
import { createRefund } from '@/lib/refunds/create-refund';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { sendFromWallet } from '@/lib/wallets/send-from-wallet';
import type { Step } from './steps';

async function run(step: Step): Promise<unknown> {
  switch (step.op) {
    case 'pay':
      return payFromBalance(step);
    case 'withdraw':
      return withdrawFromMerchantWallet(step.input);
    case 'send':
      return sendFromWallet(step.input);
    case 'refund':
      return (await createRefund({ ctx: step.ctx, chargeId: step.chargeId, body: {}, idempotencyKey: step.idempotencyKey })).refund;
    case 'claim':
      return claimRefund({ token: step.token, to: step.to });
    case 'sweep':
      return sweepCharge(step.chargeId);
    case 'sweepBatch':
      return Object.fromEntries(await sweepBatch(step.chargeIds));
    case 'swap':
      return swapHeldFunds(step.input);
    case 'reconcile': {
      let handled = 0;
      for (let round = 0; round < step.rounds; round++) {
        handled += await reconcileDueTransfers({ ignoreSchedule: true });
        await new Promise((resolve) => setTimeout(resolve, step.pauseMs));
      }
      return { handled };
    }
  }
}

try {
  const result = await run(JSON.parse(process.argv[2]!) as Step);
  console.log(JSON.stringify({ ok: true, result }));
} catch (error) {
  const e = error as { code?: string; message?: string };
  console.log(JSON.stringify({ ok: false, code: e.code ?? null, message: e.message ?? String(error) }));
} finally {
  await closeDb();
}
