/**
 * The ledger against the chain on a private Polygon node (its own database too): a paid, swept and
 * partly refunded charge reconciles to the unit, gas included; a token nothing records (stranded at a
 * deposit address) and value that left a deposit address behind the service's back are reported; a deposit
 * address with no record at all is still read, and the gas tank is reconciled from the block its books open.
 */
import { eq } from 'drizzle-orm';
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, ledgerOpenings, wallets } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { pollChain } from '@/lib/payments/poll-chain';
import { createRefund } from '@/lib/refunds/create-refund';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';
import { reconcileChain } from './reconcile-chains';

const CHAIN = 'DFK_TESTNET' as const;
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
const payer = privateKeyToAccount(generatePrivateKey());
const JEWEL = CHAINS[CHAIN].tokens[0]!;

beforeAll(async () => {
  await switchToPrivateDatabase('ledger');
  node = await startLocalChain({ chain: CHAIN });
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  process.env.RPC_URL_DFK_TESTNET = node.url;
  process.env.LOCAL_CHAINS = `POLYGON,POLYGON_AMOY,${CHAIN}`;
  resetEnvCache();
  client = createPublicClient({ transport: http(node.url) });
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: payer.address });
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address });
  merchant = await newMerchant({ verified: true });
});

afterAll(async () => {
  await node.stop();
});

/** Both scanners up to the head, and the engine's transfers settled, as the background jobs would. */
async function settleEverything(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    await reconcileDueTransfers({ ignoreSchedule: true });
    await pollChain(CHAIN);
    await pollIncomingTransfers(CHAIN);
  }
}

async function paidCharge(amount: string): Promise<{ chargeId: string; deposit: Address }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.testKey,
    body: { chargeData: { symbol: 'JEWEL', chain: 'DFK', tokenAddress: JEWEL.address, amount }, isTest: true },
  });
  const wallet = createWalletClient({ account: payer, transport: http(node.url) });
  await client.waitForTransactionReceipt({
    hash: await wallet.sendTransaction({ to: deposit.address as Hex, value: parseUnits(amount, 18), chain: null }),
  });
  await settleEverything();
  const [row] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  expect(row!.status).toBe('succeeded');
  return { chargeId, deposit: deposit.address as Address };
}

const tank = () => gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address;

const ours = (result: Awaited<ReturnType<typeof reconcileChain>>, address: string) =>
  result.discrepancies.filter((d) => d.address.toLowerCase() === address.toLowerCase());

describe('reconciliation', () => {
  it('a charge paid, refunded in part and swept reconciles to the unit, fees included', async () => {
    const { chargeId, deposit } = await paidCharge('3');
    await createRefund({
      ctx: { merchantId: merchant.id, mode: 'test', actor: 'api_key:key_reconcile_test' },
      chargeId,
      // Back to the payer: a refund never goes to an address that did not pay (N2).
      body: { amount: '1' },
    });
    await settleEverything();
    for (let i = 0; i < 6 && (await sweepCharge(chargeId)) !== 'nothing_owed'; i++) await settleEverything();
    await settleEverything();
    const [merchantWallet] = await getDb().select().from(wallets).where(eq(wallets.merchantId, merchant.id));

    const result = await reconcileChain(CHAIN);
    expect(result.error).toBeUndefined();
    expect(result.busy).toBe(0);
    expect(result.checked).toBeGreaterThan(0);
    expect(ours(result, deposit)).toEqual([]);
    expect(ours(result, merchantWallet!.address)).toEqual([]);
  });

  it('reports a token nothing records at a deposit address (stranded) and value that left it without a record', async () => {
    const { deposit } = await paidCharge('1');
    // Funds that arrived by no transfer any scanner saw: on chain, in no record.
    const stray = parseUnits('0.5', 18);
    await client.request({
      method: 'anvil_setBalance' as never,
      params: [deposit, `0x${((await client.getBalance({ address: deposit })) + stray).toString(16)}`] as never,
    });
    await client.request({ method: 'anvil_mine' as never, params: ['0x1'] as never });
    await settleEverything();
    let result = await reconcileChain(CHAIN);
    expect(ours(result, deposit)).toEqual([
      expect.objectContaining({ symbol: 'JEWEL', difference: stray, holder: expect.stringMatching(/^deposit address of ch_/) }),
    ]);

    // Value leaves the deposit address behind the service's back (a leaked key, say).
    await client.request({ method: 'anvil_impersonateAccount' as never, params: [deposit] as never });
    const thief = createWalletClient({ account: deposit, transport: http(node.url) });
    const receipt = await client.waitForTransactionReceipt({
      hash: await thief.sendTransaction({ to: payer.address, value: parseUnits('1', 18), chain: null }),
    });
    await client.request({ method: 'anvil_stopImpersonatingAccount' as never, params: [deposit] as never });
    await settleEverything();
    result = await reconcileChain(CHAIN);
    const [missing] = ours(result, deposit);
    expect(missing!.difference).toBe(stray - parseUnits('1', 18) - receipt.gasUsed * receipt.effectiveGasPrice);
    expect(missing!.chargeIds).toHaveLength(1);
  });

  it('reads every deposit address ever issued: one whose charge never received anything still shows funds nobody recorded', async () => {
    const { deposit } = await createTestCharge({
      apiKey: merchant.testKey,
      body: { chargeData: { symbol: 'JEWEL', chain: 'DFK', tokenAddress: JEWEL.address, amount: '1' }, isTest: true },
    });
    const address = deposit.address as Address;
    // No record at all touches this address: nothing in the ledger names it.
    await client.request({ method: 'anvil_setBalance' as never, params: [address, '0x' + parseUnits('0.25', 18).toString(16)] as never });
    await client.request({ method: 'anvil_mine' as never, params: ['0x1'] as never });
    await settleEverything();
    const result = await reconcileChain(CHAIN);
    expect(ours(result, address)).toEqual([
      expect.objectContaining({
        symbol: 'JEWEL',
        expected: 0n,
        difference: parseUnits('0.25', 18),
        holder: expect.stringMatching(/^deposit address of ch_/),
      }),
    ]);
  });

  it('reconciles the gas tank: funding before its books opened is no difference, funding since is recorded, value leaving it unrecorded is', async () => {
    await settleEverything();
    // The tank was funded off the record (anvil_setBalance) before anything watched it: its books open at the first run.
    let result = await reconcileChain(CHAIN);
    expect(ours(result, tank())).toEqual([]);
    expect(await getDb().select().from(ledgerOpenings).where(eq(ledgerOpenings.address, tank().toLowerCase()))).not.toEqual([]);

    // Funding in, by a transaction: the wallet indexer records it, so the ledger follows.
    const wallet = createWalletClient({ account: payer, transport: http(node.url) });
    await client.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: tank(), value: parseUnits('2', 18), chain: null }) });
    await settleEverything();
    result = await reconcileChain(CHAIN);
    expect(ours(result, tank())).toEqual([]);

    // Value leaves the tank behind the service's back.
    await client.request({ method: 'anvil_impersonateAccount' as never, params: [tank()] as never });
    const thief = createWalletClient({ account: tank(), transport: http(node.url) });
    const receipt = await client.waitForTransactionReceipt({
      hash: await thief.sendTransaction({ to: payer.address, value: parseUnits('1', 18), chain: null }),
    });
    await client.request({ method: 'anvil_stopImpersonatingAccount' as never, params: [tank()] as never });
    await settleEverything();
    result = await reconcileChain(CHAIN);
    expect(ours(result, tank())).toEqual([
      expect.objectContaining({
        holder: 'gas tank',
        symbol: 'JEWEL',
        difference: -(parseUnits('1', 18) + receipt.gasUsed * receipt.effectiveGasPrice),
        // No charge touches the tank's entries (the report printed "charges NULL").
        chargeIds: [],
      }),
    ]);
  });
});
