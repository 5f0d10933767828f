import { and, eq, inArray } from 'drizzle-orm';
import { createPublicClient, erc20Abi, http, parseEther, parseUnits, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '@/lib/accounts/create-user';
import { setPin } from '@/lib/accounts/set-pin';
import { CHAINS } from '@/lib/chains/registry';
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import { getDb } from '@/lib/db/client';
import { charges, merchantMembers, outboundTransfers } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { expectedBalances } from '@/lib/ledger/expected-balances';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { createRefund } from '@/lib/refunds/create-refund';
import { pollChain } from '@/lib/payments/poll-chain';
import { entryPointNonceOf } from '@/lib/smart-accounts/entry-point-nonce-of';
import { readDelegation } from '@/lib/smart-accounts/read-delegation';
import { listWallets } from '@/lib/wallets/list-wallets';
import { newSendId } from '@/lib/wallets/preview-send';
import { sendFromWallet } from '@/lib/wallets/send-from-wallet';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { enrolTotp, newUser, uniqueEmail } from '@/test/accounts';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';
import { gasTankAccountFromSeed } from './gas-tank-key';

// ADR 0035, every spend on the relayed path (issue 30.2), on a private Polygon node (anvil, prague) with smart
// accounts on: balance payments, wallet sends (token and native), merchant withdrawals. The paying wallet holds
// no POL and never receives any; the gas tank sends the wallet's own signed call and pays the gas.
let node: LocalChainNode;
let client: PublicClient;
let merchant: TestMerchant;
const CHAIN = 'POLYGON' as const;
const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
const PIN = '583920';
const gasTank = gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address;
const rpc = (method: string, params: unknown[]) => client.request({ method: method as never, params: params as never });

beforeAll(async () => {
  await switchToPrivateDatabase();
  node = await startLocalChain({ chain: CHAIN });
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  process.env.RPC_URL_POLYGON = node.url;
  process.env.LOCAL_CHAINS = 'BSC,POLYGON,POLYGON_AMOY';
  process.env.SMART_ACCOUNT_CHAINS = CHAIN;
  resetEnvCache();
  client = createPublicClient({ transport: http(node.url) });
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: gasTank });
  merchant = await newMerchant({ verified: true });
  await pollChain(CHAIN);
});

afterAll(async () => {
  delete process.env.SMART_ACCOUNT_CHAINS;
  resetEnvCache();
  await node.stop();
});

const usdcOf = (address: Hex) =>
  client.readContract({ address: USDC.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

/** A consumer whose Polygon wallet holds USDC and no POL at all. */
async function consumerWithoutCoin(): Promise<{ userId: string; address: Hex }> {
  const email = uniqueEmail('relayed');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: PIN, confirm: PIN });
  const evm = (await listWallets(user.id)).find((w) => w.family === 'evm')!;
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: evm.address as Hex });
  await rpc('anvil_setBalance', [evm.address, '0x0']);
  return { userId: user.id, address: evm.address as Hex };
}

async function usdcCharge(amount: string): Promise<{ chargeId: string; deposit: Hex }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey!,
    body: { chargeData: { symbol: 'USDC', chain: CHAIN, tokenAddress: USDC.address, amount } },
  });
  return { chargeId, deposit: deposit.address as Hex };
}

/** Reconciler and watcher passes until the transfers are final (confirmed or failed). */
async function settleTransfers(ids: string[]): Promise<(typeof outboundTransfers.$inferSelect)[]> {
  for (let i = 0; i < 30; i++) {
    await rpc('anvil_mine', ['0x8']);
    await reconcileDueTransfers({ ignoreSchedule: true });
    const rows = await getDb().select().from(outboundTransfers).where(inArray(outboundTransfers.id, ids));
    if (rows.every((row) => row.status === 'confirmed' || row.status === 'failed')) return rows;
  }
  return getDb().select().from(outboundTransfers).where(inArray(outboundTransfers.id, ids));
}

function withEnv(vars: Record<string, string>, run: () => Promise<void>): Promise<void> {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  Object.assign(process.env, vars);
  resetEnvCache();
  return run().finally(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetEnvCache();
  });
}

describe('every spend on the relayed path (EIP-7702 smart accounts)', () => {
  it('a balance payment from a wallet without POL: relayed by the tank, no top-up, delegated on first use, the fee on the tank’s books', async () => {
    const consumer = await consumerWithoutCoin();
    const { chargeId, deposit } = await usdcCharge('4.99');
    expect(await readDelegation(client, consumer.address)).toBeUndefined();
    const tankBefore = await client.getBalance({ address: gasTank });

    const { transferId, txHash } = await payFromBalance({ userId: consumer.userId, chargeId, pin: PIN });
    const receipt = await client.waitForTransactionReceipt({ hash: txHash as Hex });
    expect(receipt.type).toBe('eip7702');
    expect(receipt.from.toLowerCase()).toBe(gasTank.toLowerCase());
    expect(await readDelegation(client, consumer.address)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    expect(await usdcOf(deposit)).toBe(parseUnits('4.99', 6));

    const [payment] = await settleTransfers([transferId]);
    expect(payment).toMatchObject({
      purpose: 'balance_payment',
      fromAddress: consumer.address,
      relayerAddress: gasTank,
      status: 'confirmed',
    });
    const rows = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
    expect(rows.map((row) => row.purpose)).not.toContain('gas_topup');
    // Neither the paying wallet nor the charge's deposit address ever received POL.
    expect(await client.getBalance({ address: consumer.address })).toBe(0n);
    expect(await client.getBalance({ address: deposit })).toBe(0n);
    // The fee is the tank's: what it paid equals the recorded fee, and the books say so.
    expect(payment!.gasFeeBaseUnits).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    expect(tankBefore - (await client.getBalance({ address: gasTank }))).toBe(payment!.gasFeeBaseUnits);
    const books = await expectedBalances(getDb(), { chain: CHAIN, atBlock: await client.getBlockNumber({ cacheTime: 0 }) });
    const nativeOf = (address: string) => books.find((e) => e.address === address.toLowerCase() && /^0x0{40}$/.test(e.token));
    expect(nativeOf(consumer.address)?.expected ?? 0n).toBe(0n);
    expect(nativeOf(gasTank)?.kinds).toContain('gas_fee');

    await pollChain(CHAIN);
    const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
    expect(charge!.status).toBe('succeeded');
  });

  it('a double submit (20 concurrent pays) records one relayed transfer and moves the amount once', async () => {
    const consumer = await consumerWithoutCoin();
    const { chargeId, deposit } = await usdcCharge('1.25');
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => payFromBalance({ userId: consumer.userId, chargeId, pin: PIN })),
    );
    const hashes = new Set(results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.txHash] : [])));
    expect(hashes.size).toBe(1);
    const rows = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'balance_payment')));
    expect(rows).toHaveLength(1);
    await settleTransfers([rows[0]!.id]);
    expect(await usdcOf(deposit)).toBe(parseUnits('1.25', 6));
    expect(await client.getBalance({ address: consumer.address })).toBe(0n);
  });

  it('wallet sends: a replayed send id sends once; a second send while the first is in flight takes the next EntryPoint nonce and waits for it', async () => {
    const consumer = await consumerWithoutCoin();
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const send = (sendId: string, amount: string) =>
      sendFromWallet({ chain: CHAIN, tokenAddress: USDC.address, toAddress: to, amount, userId: consumer.userId, sendId, pin: PIN });
    const before = await usdcOf(consumer.address);
    await rpc('evm_setAutomine', [false]);
    let first: string;
    let second: string;
    try {
      const firstId = newSendId();
      const [a, b] = await Promise.all([send(firstId, '2'), send(firstId, '2')]);
      expect(a.transferId).toBe(b.transferId);
      first = a.transferId;
      second = (await send(newSendId(), '3')).transferId;
    } finally {
      await rpc('evm_setAutomine', [true]);
    }
    const recorded = await getDb()
      .select()
      .from(outboundTransfers)
      .where(inArray(outboundTransfers.id, [first, second]));
    const firstRow = recorded.find((r) => r.id === first)!;
    const secondRow = recorded.find((r) => r.id === second)!;
    expect(firstRow.relayerAddress).toBe(gasTank);
    expect(secondRow.dependsOnTransferIds).toContain(first);
    expect(entryPointNonceOf(secondRow.callData, consumer.address)).toBe(entryPointNonceOf(firstRow.callData, consumer.address)! + 1n);

    const final = await settleTransfers([first, second]);
    expect(final.map((row) => row.status)).toEqual(['confirmed', 'confirmed']);
    expect(await usdcOf(to)).toBe(parseUnits('5', 6));
    expect(before - (await usdcOf(consumer.address))).toBe(parseUnits('5', 6));
    expect(await client.getBalance({ address: consumer.address })).toBe(0n);
    const topUps = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.toAddress, consumer.address), eq(outboundTransfers.purpose, 'gas_topup')));
    expect(topUps).toEqual([]);
  });

  it('a native send of the whole balance is relayed (execute with value): all of it moves, the tank pays the fee', async () => {
    const consumer = await consumerWithoutCoin();
    const whole = parseEther('0.25');
    await rpc('anvil_setBalance', [consumer.address, `0x${whole.toString(16)}`]);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const { transferId } = await sendFromWallet({
      chain: CHAIN,
      tokenAddress: '0x0000000000000000000000000000000000000000',
      toAddress: to,
      amount: '0.25',
      userId: consumer.userId,
      sendId: newSendId(),
      pin: PIN,
    });
    const [row] = await settleTransfers([transferId]);
    expect(row).toMatchObject({ status: 'confirmed', relayerAddress: gasTank, amountBaseUnits: whole });
    // A wallet that can pay its own fee sends its coin itself, as on every chain: nothing sponsored.
    const rich = await consumerWithoutCoin();
    await rpc('anvil_setBalance', [rich.address, `0x${parseEther('1').toString(16)}`]);
    const own = await sendFromWallet({
      chain: CHAIN,
      tokenAddress: '0x0000000000000000000000000000000000000000',
      toAddress: to,
      amount: '0.1',
      userId: rich.userId,
      sendId: newSendId(),
      pin: PIN,
    });
    const [ownRow] = await settleTransfers([own.transferId]);
    expect(ownRow).toMatchObject({ status: 'confirmed', relayerAddress: null, fromAddress: rich.address });
    expect(await client.getBalance({ address: to })).toBe(whole + parseEther('0.1'));
    expect(await client.getBalance({ address: consumer.address })).toBe(0n);
    // More than it holds is refused before anything is signed.
    await expect(
      sendFromWallet({
        chain: CHAIN,
        tokenAddress: '0x0000000000000000000000000000000000000000',
        toAddress: to,
        amount: '0.01',
        userId: consumer.userId,
        sendId: newSendId(),
        pin: PIN,
      }),
    ).rejects.toMatchObject({ code: 'insufficient_balance' });
  });

  it('a merchant withdrawal from a wallet without POL is relayed, charged to the merchant', async () => {
    const owner = await newUser({ pin: PIN });
    await enrolTotp(owner);
    await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: owner, role: 'owner' });
    const wallet = (await ensureMerchantWallets(getDb(), merchant.id)).find((w) => w.family === 'evm')!.address as Hex;
    await fundLocalWallet({ chain: CHAIN, url: node.url, address: wallet });
    await rpc('anvil_setBalance', [wallet, '0x0']);
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const { transferId } = await withdrawFromMerchantWallet({
      userId: owner,
      merchantId: merchant.id,
      mode: 'live',
      chain: CHAIN,
      tokenAddress: USDC.address,
      amount: '12.5',
      toAddress: destination,
      pin: PIN,
    });
    const [row] = await settleTransfers([transferId]);
    expect(row).toMatchObject({ purpose: 'withdrawal', status: 'confirmed', relayerAddress: gasTank, sponsorMerchantId: merchant.id });
    expect(await usdcOf(destination)).toBe(parseUnits('12.5', 6));
    expect(await client.getBalance({ address: wallet })).toBe(0n);
  });

  it('a refund from the deposit address is relayed: the payer gets it back, the deposit never receives POL', async () => {
    const consumer = await consumerWithoutCoin();
    const { chargeId, deposit } = await usdcCharge('3');
    const { transferId } = await payFromBalance({ userId: consumer.userId, chargeId, pin: PIN });
    await settleTransfers([transferId]);
    await pollChain(CHAIN);
    const before = await usdcOf(consumer.address);
    const { refund } = await createRefund({
      ctx: { merchantId: merchant.id, mode: 'live', actor: 'api_key:key_relayed_test' },
      chargeId,
      body: { amount: '1' },
    });
    expect(refund).toMatchObject({ amount: '1', destination: consumer.address });
    const [row] = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'refund')));
    expect(row).toMatchObject({ fromAddress: deposit, relayerAddress: gasTank, sponsorMerchantId: merchant.id });
    await settleTransfers([row!.id]);
    expect((await usdcOf(consumer.address)) - before).toBe(parseUnits('1', 6));
    expect(await client.getBalance({ address: deposit })).toBe(0n);
    expect(await readDelegation(client, deposit)).toBe(SIMPLE_7702_ACCOUNT_ADDRESS);
    const topUps = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'gas_topup')));
    expect(topUps).toEqual([]);
  });

  it('caps count sponsored gas: the next sponsorship past the user’s daily gas is refused, nothing recorded', async () => {
    const consumer = await consumerWithoutCoin();
    const first = await usdcCharge('1');
    const { transferId } = await payFromBalance({ userId: consumer.userId, chargeId: first.chargeId, pin: PIN });
    const [row] = await settleTransfers([transferId]);
    // One relayed payment counts its gas limit; a cap just above it leaves too little for a second one.
    const cap = row!.gasLimit! + 1_000n;
    await withEnv({ GAS_TANK_DAILY_SPONSORED_GAS_PER_USER: cap.toString() }, async () => {
      const second = await usdcCharge('1');
      await expect(payFromBalance({ userId: consumer.userId, chargeId: second.chargeId, pin: PIN })).rejects.toMatchObject({
        code: 'gas_sponsorship_limit',
        message: expect.stringMatching(/gas in 24 hours/),
      });
      expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, second.chargeId))).toEqual([]);
    });
    // The same payment under a cap with room passes (the cap, not something else, refused it).
    await withEnv({ GAS_TANK_DAILY_SPONSORED_GAS_PER_USER: (row!.gasLimit! * 3n).toString() }, async () => {
      const third = await usdcCharge('1');
      await expect(payFromBalance({ userId: consumer.userId, chargeId: third.chargeId, pin: PIN })).resolves.toMatchObject({
        txHash: expect.any(String),
      });
    });
  });

  it('caps count top-ups in gas too (where smart accounts are off): the gas they buy plus their own', async () => {
    await withEnv({ SMART_ACCOUNT_CHAINS: '' }, async () => {
      const consumer = await consumerWithoutCoin();
      const first = await usdcCharge('1');
      await payFromBalance({ userId: consumer.userId, chargeId: first.chargeId, pin: PIN });
      const [topUp] = await getDb()
        .select()
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.chargeId, first.chargeId), eq(outboundTransfers.purpose, 'gas_topup')));
      expect(topUp).toMatchObject({ sponsorUserId: consumer.userId, relayerAddress: null });
      const counted = (topUp!.amountBaseUnits + topUp!.maxFeePerGas! - 1n) / topUp!.maxFeePerGas! + topUp!.gasLimit!;
      await settleTransfers([topUp!.id]);
      await rpc('anvil_setBalance', [consumer.address, '0x0']);
      const second = await usdcCharge('1');
      await withEnv({ GAS_TANK_DAILY_SPONSORED_GAS_PER_USER: (counted + 1_000n).toString() }, async () => {
        await expect(payFromBalance({ userId: consumer.userId, chargeId: second.chargeId, pin: PIN })).rejects.toMatchObject({
          code: 'gas_sponsorship_limit',
          message: expect.stringContaining(`${counted} of ${counted + 1_000n} gas`),
        });
      });
    });
  });
});
