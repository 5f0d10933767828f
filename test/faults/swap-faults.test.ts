/**
 * The fault-injection suite, swap part (see faults.test.ts): a consumer pays a PZP charge with USDC they
 * hold (approve + swapTokensForExactTokens into the deposit address, through the transaction engine) on a
 * private BSC node with the local pool, and the app dies by SIGKILL at each crash point of the swap's
 * transfers; the consumer presses Pay again. Audited against the chain: the deposit got the PZP due once,
 * the payee got it once after the sweep, the consumer paid exactly one swap's input, the charge
 * succeeded, and the ledger reconciles.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { eq } from 'drizzle-orm';
import { parseUnits, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { swapExecutions } from '@/lib/db/schema';
import type { LocalChainNode } from '@/scripts/stack/local-chain';
import { reconcileChain } from '@/lib/ledger/reconcile-chains';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { pollChain } from '@/lib/payments/poll-chain';
import { quoteHeldFundsSwap, swapHeldFunds } from '@/lib/swap/swap-held-funds';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';
import type { CrashPoint } from '@/lib/crash-points';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import {
  BSC_USDC,
  PZP,
  balanceOf,
  chargeStatus,
  createPzpCharge,
  fundedConsumer,
  heldFundsSwapInput,
  startSwapTestChain,
} from '@/test/swap';
import { runStep } from './spawn-step';

const PIN = '583920';
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
const rows: string[] = [];

beforeAll(async () => {
  ({ node, client } = await startSwapTestChain());
  await jobsOnce(); // the scanners start here: everything after is on the record
  merchant = await newMerchant({ verified: true });
}, 180_000);

afterAll(async () => {
  if (rows.length) {
    const text = [
      '| Scenario | Swap executions | PZP to the payee | USDC taken | Charge | Unaccounted |',
      '| --- | ---: | --- | --- | --- | ---: |',
      ...rows,
    ].join('\n');
    console.log(`\nFault-injection suite (swaps)\n\n${text}\n`);
    mkdirSync('.data/test-results', { recursive: true });
    writeFileSync('.data/test-results/faults-swap.md', `${text}\n`);
  }
  await node?.stop();
});

async function jobsOnce(): Promise<void> {
  await reconcileDueTransfers({ ignoreSchedule: true }).catch(() => 0);
  await pollChain('BSC', { client }).catch(() => null);
  await pollIncomingTransfers('BSC', { client }).catch(() => null);
}

describe('swap on-ramp: the app killed mid-swap (SIGKILL)', () => {
  for (const point of ['transfer.recorded', 'transfer.sent'] as const satisfies CrashPoint[]) {
    it(`dies at ${point}; the consumer presses Pay again: one swap, the PZP due once, the ledger reconciles`, async () => {
      const consumer = await fundedConsumer(node.url, PIN, { noGas: true });
      await jobsOnce(); // the consumer's USDC arrives on the record
      const payee = privateKeyToAccount(generatePrivateKey()).address as Address;
      const { chargeId, deposit } = await createPzpCharge(merchant, '250', payee);
      const quote = await quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'DE', complianceCountry: 'DE' });
      const usdcBefore = await balanceOf(client, BSC_USDC, consumer.wallet);
      const input = heldFundsSwapInput(quote, { userId: consumer.userId, chargeId, pin: PIN });

      expect((await runStep({ op: 'swap', input }, point)).killed).toBe(true);
      const again = await swapHeldFunds(input);

      for (let i = 0; i < 12 && (await chargeStatus(chargeId)) !== 'succeeded'; i++) await jobsOnce();
      for (let i = 0; i < 12; i++) {
        if ((await sweepCharge(chargeId)) === 'nothing_owed') break;
        await jobsOnce();
      }
      await jobsOnce();

      const executions = await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId));
      expect(executions.map((e) => [e.id, e.status])).toEqual([[again.swapExecutionId, 'confirmed']]);
      const pzpToPayee = await balanceOf(client, PZP, payee);
      const usdcTaken = usdcBefore - (await balanceOf(client, BSC_USDC, consumer.wallet));
      const status = await chargeStatus(chargeId);
      const ledger = await reconcileChain('BSC');
      rows.push(
        `| ${point}: consumer pays again | ${executions.length} | ${pzpToPayee === parseUnits('250', 18) ? '250 (once)' : pzpToPayee.toString()} | ${usdcTaken === executions[0]!.amountIn ? 'one swap’s input' : usdcTaken.toString()} | ${status} | ${ledger.discrepancies.length} |`,
      );
      expect(pzpToPayee).toBe(parseUnits('250', 18));
      expect(await balanceOf(client, PZP, deposit)).toBe(0n);
      expect(usdcTaken).toBe(executions[0]!.amountIn);
      expect(status).toBe('succeeded');
      expect(ledger.error).toBeUndefined();
      expect(ledger.discrepancies).toEqual([]);
    }, 180_000);
  }
});
