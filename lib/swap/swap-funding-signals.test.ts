/**
 * Which PZP charges the conversion job reads (issue 27): only those with a signal of funding, so a funded
 * charge is never queued behind unfunded ones and a pass without a signal reads nothing from the chain;
 * the watcher notes each USDC transfer to a PZP deposit once; the fallback walk finds what no signal named.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { createWalletClient, erc20Abi, http, parseUnits, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, payments, scannerCursors, swapExecutions, swapFundingSignals } from '@/lib/db/schema';
import { pollChain } from '@/lib/payments/poll-chain';
import { localDemoPayerAccount, type LocalChainNode } from '@/scripts/stack/local-chain';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { BSC_USDC, chargeStatus, createPzpCharge, startSwapTestChain } from '@/test/swap';
import { RETRY_AFTER_MS, chargesAwaitingConversion, convertSwapFunding } from './convert-swap-funding';
import { settleSwapTransfer } from './settle-swap-transfer';
import { FALLBACK_BATCH, checkSwapFundingFallback, type FallbackCursor } from './check-swap-funding-fallback';
import { quoteSwapFunding } from './place-swap-funding-order';

let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
/** Open PZP charges nobody funded (players who opened a checkout and left), older than every charge below. */
const unfunded: string[] = [];

beforeAll(async () => {
  ({ node, client } = await startSwapTestChain());
  // The app's BSC client goes through the relay from here on (a new URL: a new client).
  process.env.RPC_URL_BSC = await startCountingRelay(node.url);
  resetEnvCache();
  merchant = await newMerchant({ verified: true });
  for (let i = 0; i < 60; i++) unfunded.push((await createPzpCharge(merchant, '25', recipient())).chargeId);
});

afterAll(async () => {
  await new Promise((resolve) => relay.close(resolve));
  await node.stop();
});

const recipient = (): Address => privateKeyToAccount(generatePrivateKey()).address;

async function sendUsdc(to: Address, amount: bigint): Promise<{ hash: string; logIndex: number; blockHash: string }> {
  const wallet = createWalletClient({ account: localDemoPayerAccount, transport: http(node.url) });
  const hash = await wallet.writeContract({ address: BSC_USDC, abi: erc20Abi, functionName: 'transfer', args: [to, amount], chain: null });
  const receipt = await client.waitForTransactionReceipt({ hash });
  return { hash: hash.toLowerCase(), logIndex: receipt.logs[0]!.logIndex, blockHash: receipt.blockHash.toLowerCase() };
}

/** A PZP charge with the USDC its conversion needs already at its deposit address (nothing polled yet). */
async function fundedCharge(): Promise<{
  chargeId: string;
  deposit: Address;
  sent: { hash: string; logIndex: number; blockHash: string };
}> {
  const { chargeId, deposit } = await createPzpCharge(merchant, '30', recipient());
  const { fundingAmount } = await quoteSwapFunding({ chargeId });
  return { chargeId, deposit, sent: await sendUsdc(deposit, parseUnits(fundingAmount, 18)) };
}

/** The JSON-RPC requests the app sent to the BSC node (through a counting relay; the test's own reads go direct). */
const appRequests: { method: string; params: unknown }[] = [];
let relay: Server;

async function startCountingRelay(target: string): Promise<string> {
  relay = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const parsed = JSON.parse(body) as { method: string; params: unknown } | { method: string; params: unknown }[];
      appRequests.push(...(Array.isArray(parsed) ? parsed : [parsed]));
      void fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (answer) => {
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(await answer.text());
      });
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(relay.address() as AddressInfo).port}`;
}

/** Counts what the app asks the node from now on: every request, and whose USDC balance it read. */
function countChainReads() {
  const start = appRequests.length;
  const since = () => appRequests.slice(start);
  return {
    requests: () => since().length,
    /** The addresses whose USDC balance was read (lower case), each once. */
    balancesRead: () =>
      new Set(
        since()
          .filter((r) => r.method === 'eth_call' && JSON.stringify(r.params).toLowerCase().includes(BSC_USDC.toLowerCase()))
          .flatMap((r) =>
            [...JSON.stringify(r.params).matchAll(/0x70a08231[0-9a-f]{24}([0-9a-f]{40})/gi)].map((m) => `0x${m[1]!.toLowerCase()}`),
          ),
      ),
  };
}

const executionsOf = (chargeId: string) => getDb().select().from(swapExecutions).where(eq(swapExecutions.chargeId, chargeId));
const signalsOf = (chargeId: string) => getDb().select().from(swapFundingSignals).where(eq(swapFundingSignals.chargeId, chargeId));

describe('swap conversion candidates: signals of funding, not open charges', () => {
  it('with 60 older unfunded PZP charges open, a newly funded one is converted in the next pass, reading only its balance', async () => {
    const { chargeId, deposit } = await fundedCharge();
    await pollChain('BSC', { client });
    expect(await chargeStatus(chargeId)).toBe('pending'); // USDC is noted, never counted as the PZP charge's payment

    const reads = countChainReads();
    expect(await convertSwapFunding()).toBe(1);
    // Only the funded deposit's balance: none of the 60 older ones.
    expect([...reads.balancesRead()]).toEqual([deposit.toLowerCase()]);
    expect(await executionsOf(chargeId)).toEqual([expect.objectContaining({ branch: 'onramp_conversion', status: expect.any(String) })]);
    for (const id of unfunded) expect(await executionsOf(id)).toEqual([]);
  });

  it('a pass with no funded charge reads nothing from the chain, whatever the number of open PZP charges', async () => {
    await pollChain('BSC', { client }); // nothing new to note
    const reads = countChainReads();
    expect(await convertSwapFunding()).toBe(0);
    expect(reads.requests()).toBe(0);
    expect(await chargesAwaitingConversion()).toEqual([]);
  });

  it('the watcher notes a USDC transfer to a PZP deposit exactly once, however often it is scanned; one conversion follows', async () => {
    const { chargeId, sent } = await fundedCharge();
    // USDC paying a USDC charge is its payment, not a swap signal.
    const usdcCharge = await createTestCharge({
      apiKey: merchant.liveKey!,
      body: {
        chargeData: { symbol: 'USDC', chain: 'BSC', tokenAddress: BSC_USDC, amount: '2', toAddress: recipient() },
        isDirectTransfer: true,
      },
    });
    await sendUsdc(usdcCharge.deposit.address as Address, parseUnits('2', 18));

    await pollChain('BSC', { client });
    expect(await signalsOf(chargeId)).toEqual([
      expect.objectContaining({ source: `transfer:${sent.hash}:${sent.logIndex}:${sent.blockHash}`, handledAt: null }),
    ]);
    expect(await signalsOf(usdcCharge.chargeId)).toEqual([]);
    expect(await getDb().select().from(payments).where(eq(payments.chargeId, chargeId))).toEqual([]);

    // The scanner starts again from 100 blocks back (a lost cursor; a re-organisation re-scans likewise): seen again, noted once.
    await getDb()
      .delete(scannerCursors)
      .where(and(eq(scannerCursors.consumer, 'charges'), eq(scannerCursors.chain, 'BSC')));
    await pollChain('BSC', { client });
    await pollChain('BSC', { client });
    expect(await signalsOf(chargeId)).toHaveLength(1);

    expect(await chargesAwaitingConversion()).toEqual([chargeId]);
    await Promise.all([convertSwapFunding(), convertSwapFunding()]);
    expect(await executionsOf(chargeId)).toHaveLength(1);
    expect((await signalsOf(chargeId))[0]!.handledAt).not.toBeNull();
    // Handled: the next pass reads nothing.
    const reads = countChainReads();
    expect(await convertSwapFunding()).toBe(0);
    expect(reads.requests()).toBe(0);
  });

  it('a funded charge no signal named is found by the fallback walk, which reads at most FALLBACK_BATCH balances a run', async () => {
    const { chargeId } = await fundedCharge(); // never polled: no sighting
    expect(await signalsOf(chargeId)).toEqual([]);
    expect(await convertSwapFunding()).toBe(0);

    const cursor: FallbackCursor = {};
    let runs = 0;
    while (!(await executionsOf(chargeId)).length) {
      expect(++runs).toBeLessThanOrEqual(Math.ceil(70 / FALLBACK_BATCH) + 1);
      const reads = countChainReads();
      const checked = await checkSwapFundingFallback(new Date(), cursor);
      expect(checked.length).toBeLessThanOrEqual(FALLBACK_BATCH);
      expect(reads.balancesRead().size).toBeLessThanOrEqual(checked.length);
    }
    expect(await executionsOf(chargeId)).toEqual([expect.objectContaining({ branch: 'onramp_conversion' })]);
  });

  it('a conversion that ends failed on chain is asked again once the back-off has run out', async () => {
    const { chargeId } = await fundedCharge();
    await pollChain('BSC', { client });
    expect(await convertSwapFunding()).toBe(1);
    const [execution] = await executionsOf(chargeId);
    const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, execution!.swapTransferId!));
    // The engine's outcome hook, as when the swap reverts (the price moved past its limit): its USDC stays at the address.
    await getDb().transaction((tx) => settleSwapTransfer(tx, transfer!, { status: 'failed', reason: 'reverted' }));
    const now = new Date();
    expect(await chargesAwaitingConversion(now)).not.toContain(chargeId);
    expect(await chargesAwaitingConversion(new Date(now.getTime() + RETRY_AFTER_MS + 1_000))).toEqual([chargeId]);
  });
});
