import { and, eq } from 'drizzle-orm';
import { createWalletClient, erc20Abi, http, parseUnits, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { chargeEvents, outboundTransfers, swapExecutions } from '@/lib/db/schema';
import { localDemoPayerAccount, type LocalChainNode } from '@/scripts/stack/local-chain';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { appError } from '@/test/accounts';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import { AppError } from '@/lib/errors';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { quoteHeldFundsSwap, swapHeldFunds } from './swap-held-funds';
import {
  BSC_USDC,
  PZP,
  balanceOf,
  buyPzpElsewhere,
  chargeStatus,
  createPzpCharge,
  fundedConsumer,
  heldFundsSwapInput,
  startSwapTestChain,
  sweepUntilDone,
  watchUntilSucceeded,
} from '@/test/swap';

const PIN = '583920';
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;

beforeAll(async () => {
  ({ node, client } = await startSwapTestChain());
  merchant = await newMerchant({ verified: true });
});

afterAll(async () => {
  await node.stop();
});

const recipient = (): Address => privateKeyToAccount(generatePrivateKey()).address;

async function swapError(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('swap on-ramp, branch A: pay with USDC the payer holds', () => {
  it('quotes first, swaps exactly the PZP due into the deposit address (gas from the tank), the charge succeeds and toAddress receives exactly that PZP', async () => {
    const consumer = await fundedConsumer(node.url, PIN, { noGas: true });
    const toAddress = recipient();
    const { chargeId, deposit } = await createPzpCharge(merchant, '250', toAddress);

    const quote = await quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'DE', complianceCountry: 'DE' });
    expect(quote).toMatchObject({ targetSymbol: 'PZP', fundingSymbol: 'USDC', amountOut: '250', slippageBps: 100, enough: true });
    expect(BigInt(quote.amountInMaxBaseUnits)).toBe((parseUnits(quote.amountIn, 18) * 10_100n + 9_999n) / 10_000n);
    const usdcBefore = await balanceOf(client, BSC_USDC, consumer.wallet);

    const { swapExecutionId, txHash } = await swapHeldFunds(heldFundsSwapInput(quote, { userId: consumer.userId, chargeId, pin: PIN }));
    expect((await client.waitForTransactionReceipt({ hash: txHash as Hex })).status).toBe('success');
    await reconcileDueTransfers({ ignoreSchedule: true });
    const [execution] = await getDb().select().from(swapExecutions).where(eq(swapExecutions.id, swapExecutionId));
    expect(execution).toMatchObject({
      status: 'confirmed',
      branch: 'held_funds',
      fromAddress: consumer.wallet,
      recipient: deposit,
      amountOut: parseUnits('250', 18),
    });
    // Nobody traded in between: it took exactly the quoted input.
    expect(execution!.amountIn).toBe(parseUnits(quote.amountIn, 18));
    expect(usdcBefore - (await balanceOf(client, BSC_USDC, consumer.wallet))).toBe(execution!.amountIn);
    expect(await balanceOf(client, PZP, deposit)).toBe(parseUnits('250', 18));

    // The payer had no BNB: the gas tank topped up the exact shortfall, recorded as platform cost.
    const [topUp] = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'gas_topup')));
    expect(topUp).toMatchObject({ toAddress: consumer.wallet });

    expect(await watchUntilSucceeded(client, chargeId)).toBe('succeeded');
    await sweepUntilDone(chargeId);
    expect(await balanceOf(client, PZP, toAddress)).toBe(parseUnits('250', 18));
    const events = (await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId))).map((e) => e.type);
    expect(events).toEqual(
      expect.arrayContaining(['charge.swap_submitted', 'charge.swap_confirmed', 'charge.succeeded', 'charge.sweep_submitted']),
    );
  });

  it('a wrong PIN changes nothing', async () => {
    const consumer = await fundedConsumer(node.url, PIN);
    const { chargeId, deposit } = await createPzpCharge(merchant, '10', recipient());
    const quote = await quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'DE', complianceCountry: 'DE' });
    const usdcBefore = await balanceOf(client, BSC_USDC, consumer.wallet);
    const error = await appError(swapHeldFunds(heldFundsSwapInput(quote, { userId: consumer.userId, chargeId, pin: '111111' })));
    expect(error.code).toBe('pin_incorrect');
    expect(await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId))).toHaveLength(0);
    expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId))).toHaveLength(0);
    expect(await balanceOf(client, BSC_USDC, consumer.wallet)).toBe(usdcBefore);
    expect(await balanceOf(client, PZP, deposit)).toBe(0n);
    expect(await chargeStatus(chargeId)).toBe('pending');
  });

  it('refuses when the pool moved past the maximum the payer accepted: nothing is signed or sent', async () => {
    const consumer = await fundedConsumer(node.url, PIN);
    const { chargeId, deposit } = await createPzpCharge(merchant, '1000', recipient());
    const quote = await quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'DE', complianceCountry: 'DE' });
    // Someone buys 2% of the pool's USDC worth of PZP: more than the 1% slippage limit.
    await buyPzpElsewhere(client, node.url, parseUnits('1000', 18));
    const usdcBefore = await balanceOf(client, BSC_USDC, consumer.wallet);
    const error = await swapError(swapHeldFunds(heldFundsSwapInput(quote, { userId: consumer.userId, chargeId, pin: PIN })));
    expect(error.code).toBe('slippage_exceeded');
    expect(error.message).toContain(`more than the ${quote.amountInMax} USDC you accepted`);
    expect(await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId))).toHaveLength(0);
    expect(await balanceOf(client, BSC_USDC, consumer.wallet)).toBe(usdcBefore);
    expect(await balanceOf(client, PZP, deposit)).toBe(0n);

    // A fresh quote reflects the new price, and with it the swap goes through.
    const fresh = await quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'DE', complianceCountry: 'DE' });
    expect(BigInt(fresh.amountInMaxBaseUnits)).toBeGreaterThan(BigInt(quote.amountInMaxBaseUnits));
    const { txHash } = await swapHeldFunds(heldFundsSwapInput(fresh, { userId: consumer.userId, chargeId, pin: PIN }));
    expect((await client.waitForTransactionReceipt({ hash: txHash as Hex })).status).toBe('success');
    expect(await balanceOf(client, PZP, deposit)).toBe(parseUnits('1000', 18));
  });

  it('swaps once: a double submission gets the first swap back', async () => {
    const consumer = await fundedConsumer(node.url, PIN);
    const { chargeId } = await createPzpCharge(merchant, '5', recipient());
    const quote = await quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'DE', complianceCountry: 'DE' });
    const input = heldFundsSwapInput(quote, { userId: consumer.userId, chargeId, pin: PIN });
    const [first, second] = await Promise.all([swapHeldFunds(input), swapHeldFunds(input)]);
    expect(second.swapExecutionId).toBe(first.swapExecutionId);
    expect(await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId))).toHaveLength(1);
  });

  it('is not offered in the United States', async () => {
    const consumer = await fundedConsumer(node.url, PIN);
    const { chargeId } = await createPzpCharge(merchant, '5', recipient());
    const refused = await swapError(quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'US', complianceCountry: 'US' }));
    expect(refused.code).toBe('swap_unavailable');
    expect(refused.message).toContain('not available in the United States');
    const quote = await quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'FR', complianceCountry: 'FR' });
    const error = await swapError(swapHeldFunds(heldFundsSwapInput(quote, { userId: consumer.userId, chargeId, pin: PIN, country: 'US' })));
    expect(error.code).toBe('swap_unavailable');
    expect(await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId))).toHaveLength(0);
  });

  it('one payment method at a time: a swap and a balance payment started together, exactly one wins; the other gets payment_in_progress', async () => {
    const consumer = await fundedConsumer(node.url, PIN);
    // The payer also holds PZP, so paying the charge from the balance is possible too.
    await buyPzpElsewhere(client, node.url, parseUnits('100', 18));
    const outside = createWalletClient({ account: localDemoPayerAccount, transport: http(node.url) });
    await client.waitForTransactionReceipt({
      hash: await outside.writeContract({
        address: PZP,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [consumer.wallet, parseUnits('50', 18)],
        chain: null,
      }),
    });
    for (let round = 0; round < 2; round++) {
      const { chargeId } = await createPzpCharge(merchant, '3', recipient());
      const quote = await quoteHeldFundsSwap({ userId: consumer.userId, chargeId, country: 'DE', complianceCountry: 'DE' });
      const swap = () => swapHeldFunds(heldFundsSwapInput(quote, { userId: consumer.userId, chargeId, pin: PIN }));
      const balance = () => payFromBalance({ userId: consumer.userId, chargeId, pin: PIN });
      const results = await Promise.allSettled(round ? [balance(), swap()] : [swap(), balance()]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const [loser] = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(loser!.reason).toMatchObject({ code: 'payment_in_progress', message: expect.stringMatching(/is being processed/) });
      const swaps = await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId));
      const payments = await getDb()
        .select()
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'balance_payment')));
      expect(swaps.length + payments.length).toBe(1);
      expect(await watchUntilSucceeded(client, chargeId)).toBe('succeeded');
    }
  });
});
