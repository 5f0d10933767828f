import { and, eq } from 'drizzle-orm';
import { createWalletClient, erc20Abi, http, parseUnits, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges, onrampOrders, scannerCursors, swapExecutions } from '@/lib/db/schema';
import { expireDueCharges } from '@/lib/charges/expire-charges';
import { stubSandboxProvider } from '@/test/sandbox-provider-stub';
import { applyProviderWebhook } from '@/lib/onramp/orders/apply-provider-webhook';
import { signSandboxWebhook } from '@/lib/onramp/providers/sandbox';
import { localDemoPayerAccount, type LocalChainNode } from '@/scripts/stack/local-chain';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import { RETRY_AFTER_MS, chargesAwaitingConversion, convertChargeFunding, convertSwapFunding } from './convert-swap-funding';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { pollChain } from '@/lib/payments/poll-chain';
import { LOCAL_SWAP_ADDRESSES } from '@/lib/chains/provision-local-swap';
import { placeSwapFundingOrder, quoteSwapFunding, roundUpToCents } from './place-swap-funding-order';
import { loadSwapProgress } from './swap-progress';
import {
  BSC_USDC,
  PZP,
  balanceOf,
  buyPzpElsewhere,
  chargeStatus,
  createPzpCharge,
  startSwapTestChain,
  sweepUntilDone,
  watchUntilSucceeded,
} from '@/test/swap';
import { uniswapV2Router02Abi } from '@/lib/chains/uniswap-v2-router';

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

/** The on-ramp's delivery, simulated: USDC sent to the deposit address from outside. */
async function deliverUsdc(to: Address, amount: bigint): Promise<void> {
  const wallet = createWalletClient({ account: localDemoPayerAccount, transport: http(node.url) });
  const hash = await wallet.writeContract({ address: BSC_USDC, abi: erc20Abi, functionName: 'transfer', args: [to, amount], chain: null });
  await client.waitForTransactionReceipt({ hash });
}

async function usdcNeededFor(pzp: bigint): Promise<bigint> {
  const amounts = await client.readContract({
    address: LOCAL_SWAP_ADDRESSES.router,
    abi: uniswapV2Router02Abi,
    functionName: 'getAmountsIn',
    args: [pzp, [BSC_USDC, PZP]],
  });
  return amounts[0]!;
}

describe('swap on-ramp, branch B: on-ramped USDC converted at the deposit address', () => {
  it('buys USDC for the PZP due plus the slippage limit, rounded up to the cent, delivered to the deposit address through the provider that supports BSC', async () => {
    const { chargeId, deposit } = await createPzpCharge(merchant, '300', recipient());
    const quote = await quoteSwapFunding({ chargeId });
    const needed = await usdcNeededFor(parseUnits('300', 18));
    expect(parseUnits(quote.fundingAmount, 18)).toBe(roundUpToCents((needed * 10_100n + 9_999n) / 10_000n, 18));
    expect(quote.fundingAmount).toMatch(/^\d+(\.\d{1,2})?$/);

    const placed: unknown[] = [];
    const order = await placeSwapFundingOrder(
      { chargeId, userId: null, providerId: 'transak', paymentMethod: 'card', country: 'DE', complianceCountry: 'DE' },
      {
        placeOnrampOrder: async (input) => (
          placed.push(input),
          {
            orderId: 'ord_test',
            checkoutUrl: 'https://provider.example/checkout',
            checkoutKind: 'redirect',
            quote: {} as never,
            raisedToMinimum: false,
          }
        ),
      },
    );
    expect(order.checkoutUrl).toBe('https://provider.example/checkout');
    expect(placed).toEqual([
      expect.objectContaining({
        purpose: 'swap_funding',
        chargeId,
        providerId: 'transak',
        chain: 'BSC',
        tokenSymbol: 'USDC',
        walletAddress: deposit,
        cryptoAmount: quote.fundingAmount,
        acceptMinimum: false,
      }),
    ]);
    expect((placed[0] as { redirectUrl: string }).redirectUrl).toMatch(new RegExp(`/checkout/${chargeId}$`));

    // MoonPay does not sell USDC on BSC (registry facts): refused with the reason; nothing placed.
    const refused = await placeSwapFundingOrder(
      { chargeId, providerId: 'moonpay', paymentMethod: 'card', country: 'DE', complianceCountry: 'DE' },
      {
        placeOnrampOrder: async () => {
          throw new Error('must not be called');
        },
      },
    ).catch((e: Error) => e);
    expect(refused).toMatchObject({
      code: 'swap_unavailable',
      message: expect.stringContaining('only Transak supports BNB Smart Chain in Germany'),
    });
    const us = await placeSwapFundingOrder({
      chargeId,
      providerId: 'transak',
      paymentMethod: 'card',
      country: 'US',
      complianceCountry: 'US',
    }).catch((e: Error) => e);
    expect(us).toMatchObject({ code: 'swap_unavailable', message: expect.stringContaining('not available in the United States') });
  });

  it('through the real on-ramp order: a swap_funding order to the deposit address, completed by a signed provider webhook, then converted', async () => {
    // 800 PZP ≈ 40 USDC: above Transak's $30 card minimum.
    const { chargeId, deposit } = await createPzpCharge(merchant, '800', recipient());
    const { fundingAmount } = await quoteSwapFunding({ chargeId });
    // The sandbox provider (playing Transak here) answers over HTTP at APP_URL; no web server runs under vitest.
    const realFetch = globalThis.fetch;
    const sessions: Record<string, unknown>[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (input, init) => {
      const url = String(input);
      if (url.includes('/sandbox-provider/api/quote')) {
        const amount = new URL(url).searchParams.get('cryptoAmount')!;
        return Response.json({
          data: {
            cryptoAmount: amount,
            fiatCurrency: 'USD',
            rate: '1',
            providerFee: '0',
            networkFee: '0',
            total: amount,
            expiresAt: new Date(Date.now() + 60_000).toISOString(),
          },
        });
      }
      if (url.includes('/sandbox-provider/api/sessions')) {
        sessions.push(JSON.parse(String(init?.body)));
        return Response.json(
          {
            data: {
              sessionId: 'ses_swap',
              url: `${process.env.APP_URL}/sandbox-provider/pay/ses_swap`,
              expiresAt: new Date(Date.now() + 60_000).toISOString(),
            },
          },
          { status: 201 },
        );
      }
      return realFetch(input, init);
    });
    try {
      const placed = await placeSwapFundingOrder({
        chargeId,
        userId: null,
        providerId: 'transak',
        paymentMethod: 'card',
        country: 'DE',
        complianceCountry: 'DE',
      });
      const [order] = await getDb().select().from(onrampOrders).where(eq(onrampOrders.id, placed.orderId));
      expect(order).toMatchObject({
        purpose: 'swap_funding',
        chargeId,
        providerId: 'transak',
        chain: 'BSC',
        tokenSymbol: 'USDC',
        walletAddress: deposit,
        cryptoBaseUnits: parseUnits(fundingAmount, 18),
        status: 'created',
      });
      expect(sessions[0]).toMatchObject({
        partnerOrderId: placed.orderId,
        walletAddress: deposit,
        chain: 'BSC',
        tokenSymbol: 'USDC',
        cryptoAmount: fundingAmount,
      });

      // The provider delivers, then reports completion.
      await deliverUsdc(deposit, parseUnits(fundingAmount, 18));
      const rawBody = JSON.stringify({
        id: 'evt_swap',
        type: 'order.updated',
        data: {
          orderId: 'ses_swap',
          partnerOrderId: placed.orderId,
          status: 'COMPLETED',
          chain: 'BSC',
          tokenSymbol: 'USDC',
          cryptoAmount: fundingAmount,
          walletAddress: deposit,
        },
      });
      const signature = signSandboxWebhook(process.env.SANDBOX_PROVIDER_SECRET!, rawBody, Math.floor(Date.now() / 1000));
      expect(await applyProviderWebhook('sandbox', { rawBody, headers: { 'sandbox-signature': signature } })).toMatchObject({
        status: 200,
        outcome: 'applied',
      });
    } finally {
      vi.restoreAllMocks();
    }
    expect(await convertChargeFunding(chargeId)).toBe('submitted');
    await reconcileDueTransfers({ ignoreSchedule: true });
    expect(await balanceOf(client, PZP, deposit)).toBe(parseUnits('800', 18));
  });

  it('swaps the delivered USDC into exactly the PZP due; two job instances at once swap once; the charge succeeds and toAddress gets exactly the PZP', async () => {
    const toAddress = recipient();
    const { chargeId, deposit } = await createPzpCharge(merchant, '120.5', toAddress);
    expect(await convertChargeFunding(chargeId)).toBe('no_funding');
    expect((await loadSwapProgress(chargeId))!.stage).toBe('idle');

    const { fundingAmount } = await quoteSwapFunding({ chargeId });
    const delivered = parseUnits(fundingAmount, 18);
    await deliverUsdc(deposit, delivered);
    expect((await loadSwapProgress(chargeId))!).toMatchObject({ stage: 'funded', fundingHeld: fundingAmount });
    expect(await chargeStatus(chargeId)).toBe('pending'); // USDC is not the charge's token: not a payment
    // The job reads only charges with a signal of funding: the watcher's sighting of the USDC is one.
    expect(await chargesAwaitingConversion()).not.toContain(chargeId);
    await pollChain('BSC', { client });
    expect(await chargeStatus(chargeId)).toBe('pending');
    expect(await chargesAwaitingConversion()).toContain(chargeId);

    await Promise.all([convertSwapFunding(), convertSwapFunding()]);
    const executions = await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId));
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({
      branch: 'onramp_conversion',
      fromAddress: deposit,
      recipient: deposit,
      amountOut: parseUnits('120.5', 18),
    });
    expect(executions[0]!.amountInMax).toBeLessThanOrEqual(delivered);

    await reconcileDueTransfers({ ignoreSchedule: true });
    const [done] = await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId));
    expect(done!.status).toBe('confirmed');
    expect(await balanceOf(client, PZP, deposit)).toBe(parseUnits('120.5', 18));
    // What the swap did not use (the slippage margin) stays at the deposit address, for refund.
    expect(await balanceOf(client, BSC_USDC, deposit)).toBe(delivered - done!.amountIn!);
    expect((await loadSwapProgress(chargeId))!.stage).toBe('swapped');

    expect(await watchUntilSucceeded(client, chargeId)).toBe('succeeded');
    await sweepUntilDone(chargeId);
    expect(await balanceOf(client, PZP, toAddress)).toBe(parseUnits('120.5', 18));
    expect(await convertChargeFunding(chargeId)).toBe('not_convertible');
    expect(await chargesAwaitingConversion()).not.toContain(chargeId);
  });

  it('if the pool moved past what the USDC buys: records the failure, keeps the USDC, and retries after the back-off', async () => {
    const { chargeId, deposit } = await createPzpCharge(merchant, '200', recipient());
    const due = parseUnits('200', 18);
    // Exactly today's price, no margin; then someone buys PZP and the price goes up.
    const delivered = await usdcNeededFor(due);
    await deliverUsdc(deposit, delivered);
    await buyPzpElsewhere(client, node.url, parseUnits('500', 18));
    expect(await usdcNeededFor(due)).toBeGreaterThan(delivered);

    const now = new Date();
    expect(await convertChargeFunding(chargeId, now)).toBe('insufficient_funding');
    const [attempt] = await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId));
    expect(attempt).toMatchObject({ status: 'failed', swapTxHash: null });
    expect(attempt!.error).toContain('the deposit address holds');
    expect(await balanceOf(client, BSC_USDC, deposit)).toBe(delivered);
    const events = (await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId))).map((e) => e.type);
    expect(events).toContain('charge.swap_failed');
    expect((await loadSwapProgress(chargeId, now))!.stage).toBe('retrying');

    expect(await chargesAwaitingConversion(now)).not.toContain(chargeId);
    const later = new Date(now.getTime() + RETRY_AFTER_MS + 1_000);
    expect(await chargesAwaitingConversion(later)).toContain(chargeId);
    // Still short at the new price: refused again, nothing sent.
    expect(await convertChargeFunding(chargeId, later)).toBe('insufficient_funding');
    // More USDC arrives (the rest of a delivery, or a second purchase): the next pass swaps.
    const r = await usdcNeededFor(due);
    await deliverUsdc(deposit, r - delivered + parseUnits('1', 18));
    const evenLater = new Date(later.getTime() + RETRY_AFTER_MS + 1_000);
    expect(await convertChargeFunding(chargeId, evenLater)).toBe('submitted');
    await reconcileDueTransfers({ ignoreSchedule: true });
    expect(await balanceOf(client, PZP, deposit)).toBe(due);
    const all = await getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId));
    expect(all.map((row) => row.status).sort()).toEqual(['confirmed', 'failed', 'failed']);
    // Nobody traded since the quote: it took exactly what the router asked.
    expect(all.find((row) => row.status === 'confirmed')!.amountIn).toBe(r);
  });

  it("a funding order still running when the charge's time runs out holds it open; its USDC is converted and the charge succeeds", async () => {
    const { chargeId, deposit } = await createPzpCharge(merchant, '700', recipient());
    stubSandboxProvider();
    let orderId: string;
    try {
      ({ orderId } = await placeSwapFundingOrder({
        chargeId,
        userId: null,
        providerId: 'transak',
        paymentMethod: 'card',
        country: 'DE',
        complianceCountry: 'DE',
      }));
    } finally {
      vi.restoreAllMocks();
    }
    const { fundingAmount } = await quoteSwapFunding({ chargeId });
    await getDb()
      .update(charges)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(charges.id, chargeId));
    await expireDueCharges();
    expect(await chargeStatus(chargeId)).toBe('pending');

    // The provider delivers after expiresAt and reports completion: still held until the conversion has swapped.
    await deliverUsdc(deposit, parseUnits(fundingAmount, 18) + parseUnits('1', 18));
    await getDb().update(onrampOrders).set({ status: 'completed' }).where(eq(onrampOrders.id, orderId));
    await expireDueCharges();
    expect(await chargeStatus(chargeId)).toBe('pending');
    expect(await chargesAwaitingConversion()).toContain(chargeId);
    expect(await convertChargeFunding(chargeId)).toBe('submitted');
    await expireDueCharges();
    expect(await chargeStatus(chargeId)).toBe('pending');
    await reconcileDueTransfers({ ignoreSchedule: true });
    await expireDueCharges();
    expect(await chargeStatus(chargeId)).toBe('pending');
    expect(await watchUntilSucceeded(client, chargeId)).toBe('succeeded');
  });

  it('an overdue charge without a funding order of its own is not converted (USDC sent to it after expiry stays for refund)', async () => {
    const { chargeId, deposit } = await createPzpCharge(merchant, '40', recipient());
    await deliverUsdc(deposit, parseUnits('10', 18));
    // Expiry waits until the scanner has seen past expiresAt (lateness by block time): put it before what
    // the earlier tests' watcher scanned, or the charge rightly stays pending until the next scan.
    const [{ chain }] = (await getDb().select({ chain: charges.chain }).from(charges).where(eq(charges.id, chargeId))) as [
      { chain: string },
    ];
    const [cursor] = await getDb()
      .select({ scannedUntil: scannerCursors.scannedUntil })
      .from(scannerCursors)
      .where(and(eq(scannerCursors.consumer, 'charges'), eq(scannerCursors.chain, chain)));
    const scannedUntil = cursor?.scannedUntil?.getTime() ?? Date.now();
    await getDb()
      .update(charges)
      .set({ expiresAt: new Date(Math.min(Date.now(), scannedUntil) - 1000) })
      .where(eq(charges.id, chargeId));
    expect(await convertChargeFunding(chargeId)).toBe('not_convertible');
    await expireDueCharges();
    expect(await chargeStatus(chargeId)).toBe('expired');
  });
});
