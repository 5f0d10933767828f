/**
 * The transaction engine against a private BSC node this file controls (automine off, base fee raised,
 * blocks reverted, balances drained), at the chain's real confirmation depth — not the 1 block of the
 * shared development chains. Each test injects one fault and checks that the value moved exactly once.
 */
import { and, eq } from 'drizzle-orm';
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  http,
  parseEther,
  parseUnits,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { HttpRequestError, InternalRpcError, LimitExceededRpcError, RpcRequestError, TimeoutError } from 'viem';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createUser } from '@/lib/accounts/create-user';
import { requiredConfirmations } from '@/lib/chains/required-confirmations';
import { CHAINS, nativeToken } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { outboundTransferAttempts, outboundTransfers, wallets } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { log } from '@/lib/log';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { listWallets } from '@/lib/wallets/list-wallets';
import { openWalletKey } from '@/lib/keyring/envelope';
import { uniqueEmail } from '@/test/accounts';
import { switchToPrivateDatabase } from '@/test/private-database';
import { startRpcFaultProxy, type RpcFaultProxy } from '@/test/faults/rpc-fault-proxy';
import { TEST_SECRETS } from '@/test/test-secrets';
import { broadcastTransfer, classifySendError, submitTransfer } from './broadcast-transfer';
import { gasTankAccountFromSeed } from './gas-tank-key';
import { prepareTransfer } from './prepare-transfer';
import { SEND_BACKOFF_MAX_MS, sendBackoffMs } from './reconcile-transfers';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { recordTransfer } from './record-transfer';
import { accountFromKey } from './account-from-key';
import { transferMachine, TRANSFER_STATUSES } from './state';

const CHAIN = 'BSC' as const;
const BNB = nativeToken(CHAINS[CHAIN]);
const USDT = CHAINS[CHAIN].tokens.find((t) => t.symbol === 'USDT')!;
let node: LocalChainNode;
let client: PublicClient;
let depth: number;

const rpc = (method: string, params: unknown[] = []) => client.request({ method: method as never, params: params as never });
const mine = (blocks = 1) => rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
const reconcile = () => reconcileDueTransfers({ ignoreSchedule: true });
const transferRow = async (id: string) => (await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, id)))[0]!;
const attemptsOf = (id: string) => getDb().select().from(outboundTransferAttempts).where(eq(outboundTransferAttempts.transferId, id));
const stranger = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  // This file's own BSC node: its own records too (see test/private-database.ts).
  await switchToPrivateDatabase();
  node = await startLocalChain({ chain: CHAIN });
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  process.env.RPC_URL_BSC = node.url;
  // BSC is not a "local" chain here: its real depth applies.
  process.env.LOCAL_CHAINS = 'POLYGON,POLYGON_AMOY';
  process.env.TRANSFER_STUCK_AFTER_SECONDS = '1';
  process.env.TRANSFER_CANCEL_AFTER_FAILURES = '2';
  process.env.GAS_TANK_DAILY_TOPUPS_PER_USER = '2';
  resetEnvCache();
  client = createPublicClient({ transport: http(node.url) });
  depth = requiredConfirmations(CHAIN);
  expect(depth).toBeGreaterThan(1);
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address });
});

afterEach(async () => {
  await rpc('evm_setAutomine', [true]);
});

afterAll(async () => {
  await node.stop();
});

/** A user's service wallet on the private chain (the engine can sign for it again: bumps, cancels). */
async function funded(options: { native?: bigint } = {}): Promise<{ userId: string; address: Address }> {
  const email = uniqueEmail('engine');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  const evm = (await listWallets(user.id)).find((w) => w.family === 'evm')!;
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: evm.address as Address });
  if (options.native !== undefined) await rpc('anvil_setBalance', [evm.address, `0x${options.native.toString(16)}`]);
  return { userId: user.id, address: evm.address as Address };
}

async function signerOf(address: Address) {
  const [wallet] = await getDb().select().from(wallets).where(eq(wallets.address, address));
  return accountFromKey(openWalletKey(wallet!));
}

/** A user's own send, as their PIN authorises it (the transfer gate checks the wallet is theirs). */
async function ownSend(address: Address) {
  const [wallet] = await getDb().select({ userId: wallets.userId }).from(wallets).where(eq(wallets.address, address));
  return { authority: { kind: 'payer_pin', userId: wallet!.userId! }, destination: { class: 'any_address' } } as const;
}

/** Records a transfer of `amount` of `token` from `from` through the engine, and submits it. */
async function send(input: {
  from: Address;
  to?: Address;
  token?: typeof USDT;
  amount: bigint;
  sponsor?: { userId: string };
  idempotencyKey?: string;
  submit?: boolean;
}) {
  const token = input.token ?? BNB;
  const prepared = await prepareTransfer({
    chain: CHAIN,
    from: input.from,
    spend: { token, amount: input.amount, recipient: input.to ?? stranger() },
    gasSponsored: !!input.sponsor,
  });
  const recorded = await getDb().transaction(async (tx) =>
    recordTransfer(tx, {
      prepared,
      signer: await signerOf(input.from),
      purpose: 'wallet_send',
      authorization: await ownSend(input.from),
      gasSponsor: input.sponsor,
      ...(input.idempotencyKey ? { idempotency: { scope: `test:${input.from}`, key: input.idempotencyKey } } : {}),
    }),
  );
  if (input.submit !== false) await submitTransfer(recorded, { waitForGasMs: 0 });
  return recorded;
}

async function settleToDepth(transferId: string): Promise<string> {
  for (let i = 0; i < 6; i++) {
    await reconcile();
    const row = await transferRow(transferId);
    if (row.status === 'confirmed' || row.status === 'failed') return row.status;
    await mine(depth);
  }
  return (await transferRow(transferId)).status;
}

describe('the transfer state machine', () => {
  it('allows exactly the documented transitions', () => {
    const { table } = transferMachine;
    expect(Object.keys(table).sort()).toEqual([...TRANSFER_STATUSES].sort());
    // Confirmed is left only for included, when a deep re-organisation re-opens it (docs/adr/0036); failed is final.
    expect(table.confirmed).toEqual(['included']);
    expect(table.failed).toEqual([]);
    // A re-org may take an included transfer back to broadcast; nothing goes back to signed.
    expect(table.included).toContain('broadcast');
    expect(Object.values(table).some((to) => to.includes('signed'))).toBe(false);
  });
});

describe('faults the engine survives', () => {
  it('stuck under the base fee: re-signed at its nonce with higher fees, and the value moves once', async () => {
    const sender = await funded();
    const recipient = stranger();
    await rpc('evm_setAutomine', [false]);
    const { transfer } = await send({ from: sender.address, to: recipient, amount: parseEther('1') });
    expect((await transferRow(transfer.id)).status).toBe('broadcast');
    // The base fee jumps above what the transaction offers: it sits in the pool.
    const high = transfer.maxFeePerGas! * 4n;
    await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
    await mine();
    expect(await client.getTransactionReceipt({ hash: transfer.txHash as Hex }).catch(() => null)).toBeNull();

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await reconcile();
    const attempts = await attemptsOf(transfer.id);
    expect(attempts.map((a) => a.kind).sort()).toEqual(['fee_bump', 'original']);
    const bump = attempts.find((a) => a.kind === 'fee_bump')!;
    expect(bump.maxFeePerGas).toBeGreaterThanOrEqual((transfer.maxFeePerGas! * 1125n) / 1000n);
    expect(bump.maxPriorityFeePerGas).toBeGreaterThanOrEqual((transfer.maxPriorityFeePerGas! * 1125n) / 1000n);

    await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${high.toString(16)}`]);
    await mine();
    await rpc('evm_setAutomine', [true]);
    expect(await settleToDepth(transfer.id)).toBe('confirmed');
    const row = await transferRow(transfer.id);
    expect(row.txHash).toBe(bump.txHash);
    expect(await client.getBalance({ address: recipient })).toBe(parseEther('1'));
    expect(await client.getTransactionCount({ address: sender.address })).toBe(transfer.nonce + 1);
  });

  it('never broadcastable (the funds left meanwhile): its nonce is filled by a 0-value self-transfer, so the wallet does not wedge', async () => {
    const sender = await funded();
    const { transfer } = await send({ from: sender.address, amount: parseEther('5'), submit: false });
    // Before it is sent, the wallet is drained to a little gas money.
    await rpc('anvil_setBalance', [sender.address, `0x${parseEther('0.01').toString(16)}`]);
    await submitTransfer({ transfer });
    expect((await transferRow(transfer.id)).status).toBe('signed');
    await reconcile(); // second refusal: the cancel is signed and sent
    const attempts = await attemptsOf(transfer.id);
    expect(attempts.map((a) => a.kind)).toContain('cancel');

    expect(await settleToDepth(transfer.id)).toBe('failed');
    const failed = await transferRow(transfer.id);
    expect(failed.error).toMatch(/canceled/);
    expect(await client.getTransactionCount({ address: sender.address })).toBe(transfer.nonce + 1);
    // The next transfer from the wallet is not stuck behind a gap.
    await rpc('anvil_setBalance', [sender.address, `0x${parseEther('10').toString(16)}`]);
    const next = await send({ from: sender.address, amount: parseEther('1') });
    expect(next.transfer.nonce).toBe(transfer.nonce + 1);
    expect(await settleToDepth(next.transfer.id)).toBe('confirmed');
  });

  it('its nonce used by another transaction: failed only at depth, and only when a second pass agrees', async () => {
    const sender = await funded();
    const { transfer } = await send({ from: sender.address, amount: parseEther('1'), submit: false });
    await rpc('anvil_impersonateAccount', [sender.address]);
    await rpc('eth_sendTransaction', [{ from: sender.address, to: sender.address, value: '0x0' }]);
    await rpc('anvil_stopImpersonatingAccount', [sender.address]);
    await reconcile();
    // One block deep is not proof.
    expect((await transferRow(transfer.id)).status).toBe('signed');
    await mine(depth);
    await reconcile();
    expect((await transferRow(transfer.id)).status).toBe('signed');
    expect((await transferRow(transfer.id)).nonceTakenSeenAt).not.toBeNull();
    await reconcile();
    const row = await transferRow(transfer.id);
    expect(row).toMatchObject({ status: 'failed', error: expect.stringMatching(/nonce was used by another transaction/) });
  });

  it('re-org: an included transfer whose block leaves the chain is sent again and confirmed in its new block, once', async () => {
    const sender = await funded();
    const recipient = stranger();
    const snapshot = await rpc('evm_snapshot');
    const { transfer } = await send({ from: sender.address, to: recipient, amount: parseEther('2') });
    await reconcile();
    const included = await transferRow(transfer.id);
    expect(included.status).toBe('included');
    // The block is replaced (the chain reverts past it, then grows another branch without the transaction).
    await rpc('evm_revert', [snapshot]);
    await rpc('evm_setAutomine', [false]);
    await mine(2);
    expect(await client.getTransactionReceipt({ hash: transfer.txHash as Hex }).catch(() => null)).toBeNull();
    await reconcile();
    expect((await transferRow(transfer.id)).status).toBe('broadcast');
    // Re-included in a block of the new branch.
    await mine();
    await rpc('evm_setAutomine', [true]);
    expect(await settleToDepth(transfer.id)).toBe('confirmed');
    const confirmed = await transferRow(transfer.id);
    expect(confirmed.includedBlockHash).not.toBe(included.includedBlockHash);
    expect(await client.getBalance({ address: recipient })).toBe(parseEther('2'));
  });

  it('counts what is already in flight: two sends cannot spend one balance before either is mined', async () => {
    const sender = await funded();
    await rpc('evm_setAutomine', [false]);
    const holding = await client.readContract({
      address: USDT.address as Address,
      abi: [
        { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ type: 'address' }], outputs: [{ type: 'uint256' }] },
      ],
      functionName: 'balanceOf',
      args: [sender.address],
    });
    const first = await send({ from: sender.address, token: USDT, amount: holding - parseUnits('1', USDT.decimals) });
    expect((await transferRow(first.transfer.id)).status).toBe('broadcast');
    await expect(send({ from: sender.address, token: USDT, amount: parseUnits('2', USDT.decimals) })).rejects.toMatchObject({
      code: 'insufficient_balance',
      message: expect.stringMatching(/already committed to transfers on their way/),
    });
    const fits = await send({ from: sender.address, token: USDT, amount: parseUnits('1', USDT.decimals) });
    expect(fits.transfer.nonce).toBe(first.transfer.nonce + 1);
    await mine();
    await rpc('evm_setAutomine', [true]);
    expect(await settleToDepth(first.transfer.id)).toBe('confirmed');
    expect(await settleToDepth(fits.transfer.id)).toBe('confirmed');
  });

  it('a token transfer estimated while its recipient held the token lands after a withdrawal emptied the recipient (the fault suite’s sweep against a withdrawal)', async () => {
    const sender = await funded();
    const recipient = await funded();
    const balanceOf = (address: Address) =>
      client.readContract({ address: USDT.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
    // Estimated and signed now, while the recipient's balance slot holds a value: writing it costs 2,900 gas.
    const sweep = await send({ from: sender.address, to: recipient.address, token: USDT, amount: 1_000_000n, submit: false });
    // The recipient sends all it holds before the transfer runs (straight from its key: no engine pass may send
    // the recorded transfer first): the slot is empty, and writing it costs 20,000.
    const wallet = createWalletClient({ account: await signerOf(recipient.address), transport: http(node.url) });
    const emptied = await wallet.writeContract({
      chain: null,
      address: USDT.address as Address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [stranger(), await balanceOf(recipient.address)],
    });
    expect((await client.waitForTransactionReceipt({ hash: emptied })).status).toBe('success');
    expect(await balanceOf(recipient.address)).toBe(0n);
    await submitTransfer(sweep, { waitForGasMs: 0 });
    expect(await settleToDepth(sweep.transfer.id)).toBe('confirmed');
    expect(await balanceOf(recipient.address)).toBe(1_000_000n);
  });

  it('one idempotency id is one transfer, however often it is retried', async () => {
    const sender = await funded();
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => send({ from: sender.address, amount: parseEther('0.5'), idempotencyKey: 'retry-1' })),
    );
    const ids = new Set(
      results
        .filter((r) => r.status === 'fulfilled')
        .map((r) => (r as PromiseFulfilledResult<{ transfer: { id: string } }>).value.transfer.id),
    );
    expect(ids.size).toBe(1);
    const rows = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.idempotencyScope, `test:${sender.address}`), eq(outboundTransfers.idempotencyKey, 'retry-1')));
    expect(rows).toHaveLength(1);
  });

  it('the gas tank pays a short sender’s fee within its daily cap per user', async () => {
    const sender = await funded({ native: 0n });
    const first = await send({ from: sender.address, token: USDT, amount: 1_000_000n, sponsor: { userId: sender.userId } });
    expect(first.gasTopUp).toBeDefined();
    expect(first.transfer.dependsOnTransferIds).toEqual([first.gasTopUp!.id]);
    // Both passed the transfer gate, and say who authorised them (ADR 0025).
    expect(first.gasTopUp).toMatchObject({ authority: 'system:gas_topup', toAddress: sender.address });
    expect(first.transfer.authority).toBe(`payer_pin:${sender.userId}`);
    expect(await settleToDepth(first.gasTopUp!.id)).toBe('confirmed');
    await reconcile();
    expect(await settleToDepth(first.transfer.id)).toBe('confirmed');
    // The wallet spent its top-up on the fee; the next two need the tank again, and the cap is 2 a day.
    // Each starts from an empty wallet with nothing in flight (settled first): a top-up still in flight
    // when the next spend reads the balance is the accounting race of review finding N19, not this cap.
    await rpc('anvil_setBalance', [sender.address, '0x0']);
    const second = await send({ from: sender.address, token: USDT, amount: 1_000_000n, sponsor: { userId: sender.userId } });
    expect(second.gasTopUp).toBeDefined();
    expect(await settleToDepth(second.gasTopUp!.id)).toBe('confirmed');
    await reconcile();
    expect(await settleToDepth(second.transfer.id)).toBe('confirmed');
    await rpc('anvil_setBalance', [sender.address, '0x0']);
    await expect(send({ from: sender.address, token: USDT, amount: 1_000_000n, sponsor: { userId: sender.userId } })).rejects.toMatchObject(
      {
        code: 'gas_sponsorship_limit',
        status: 429,
      },
    );
  });

  it('the gas tank does not fund a transaction above its gas limit cap', async () => {
    const sender = await funded({ native: 0n });
    const prepared = await prepareTransfer({
      chain: CHAIN,
      from: sender.address,
      spend: { token: USDT, amount: 1_000_000n, recipient: stranger() },
      gas: 600_000n,
      gasSponsored: true,
    });
    await expect(
      getDb().transaction(async (tx) =>
        recordTransfer(tx, {
          prepared,
          signer: await signerOf(sender.address),
          purpose: 'wallet_send',
          authorization: await ownSend(sender.address),
          gasSponsor: { userId: sender.userId },
        }),
      ),
    ).rejects.toMatchObject({ code: 'gas_sponsorship_limit', message: expect.stringMatching(/600000 gas/) });
    const recorded = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.fromAddress, sender.address));
    expect(recorded).toHaveLength(0);
  });

  it('a gas top-up already in a block while its record still says broadcast is counted once: the next spend gets its own fee (N19, found by the fault suite)', async () => {
    const sender = await funded({ native: 0n });
    const sponsor = { userId: sender.userId };
    const firstTo = stranger();
    const first = await send({ from: sender.address, to: firstTo, token: USDT, amount: 1_000_000n, sponsor, submit: false });
    // The top-up is mined at once (automine); the reconciler has not looked yet, and the spend waits for it.
    await broadcastTransfer(first.gasTopUp!.id);
    expect(await client.getBalance({ address: sender.address })).toBe(first.gasTopUp!.amountBaseUnits);
    expect((await transferRow(first.gasTopUp!.id)).status).toBe('broadcast');
    // The wallet holds the first spend's fee, which that spend (in flight) will use: the second needs its own.
    const secondTo = stranger();
    const second = await send({ from: sender.address, to: secondTo, token: USDT, amount: 1_000_000n, sponsor, submit: false });
    expect(second.gasTopUp).toBeDefined();
    await broadcastTransfer(second.gasTopUp!.id);
    for (const transfer of [first.transfer, second.transfer]) {
      await reconcile();
      expect(await settleToDepth(transfer.id)).toBe('confirmed');
    }
    const usdtOf = (address: Address) =>
      client.readContract({ address: USDT.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
    expect([await usdtOf(firstTo), await usdtOf(secondTo)]).toEqual([1_000_000n, 1_000_000n]);
  });
});

describe('a slow node is not a refusal (N10)', () => {
  let proxy: RpcFaultProxy;

  beforeAll(async () => {
    // The engine reaches the node through a proxy that fails sends at the transport; the test still drives the node directly.
    proxy = await startRpcFaultProxy(node.url);
    process.env.RPC_URL_BSC = proxy.url;
    resetEnvCache();
  });

  afterAll(async () => {
    process.env.RPC_URL_BSC = node.url;
    resetEnvCache();
    await proxy.close();
  });

  it('tells transport errors from refusals', () => {
    const url = 'http://rpc.invalid';
    const rpcError = (code: number, message: string) => new RpcRequestError({ body: {}, error: { code, message }, url });
    const cases: [unknown, string][] = [
      [new TimeoutError({ body: {}, url }), 'transport'],
      [new HttpRequestError({ body: {}, url, status: 429, details: 'Too Many Requests' }), 'transport'],
      [new HttpRequestError({ body: {}, url, status: 503 }), 'transport'],
      [new HttpRequestError({ body: {}, url, cause: new TypeError('fetch failed') }), 'transport'],
      [
        new RpcRequestError({
          body: {},
          error: { code: 429, message: 'exceeded its compute units per second capacity' },
          url,
          status: 429,
        }),
        'transport',
      ],
      [new LimitExceededRpcError(rpcError(-32005, 'limit exceeded')), 'transport'],
      [new InternalRpcError(rpcError(-32603, 'internal error')), 'transport'],
      [rpcError(-32000, 'header not found'), 'transport'],
      [rpcError(-32000, 'insufficient funds for gas * price + value'), 'insufficient_funds'],
      [rpcError(-32000, 'intrinsic gas too low'), 'invalid'],
      [rpcError(-32000, 'exceeds block gas limit'), 'invalid'],
      [rpcError(-32000, 'invalid sender'), 'invalid'],
      [rpcError(-32000, 'nonce too low'), 'nonce_too_low'],
      [rpcError(-32000, 'max fee per gas less than block base fee'), 'underpriced'],
      [rpcError(-32000, 'replacement transaction underpriced'), 'underpriced'],
      [rpcError(-32000, 'already known'), 'known'],
      [rpcError(-32000, 'something no node said before'), 'other'],
    ];
    expect(cases.map(([error]) => classifySendError(error))).toEqual(cases.map(([, kind]) => kind));
  });

  it('backs off exponentially, capped', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4].map((n) => sendBackoffMs(n, mid))).toEqual([3_000, 6_000, 12_000, 24_000]);
    expect(sendBackoffMs(50, mid)).toBe(SEND_BACKOFF_MAX_MS);
    expect(sendBackoffMs(1, () => 0)).toBe(2_400);
  });

  it('ten sends without an answer (429, 503, reset, -32005, -32603) do not cancel it; past the budget it alerts; it lands once the node recovers', async () => {
    const sender = await funded();
    const recipient = stranger();
    // TRANSFER_CANCEL_AFTER_FAILURES is 2 in this file: counted as refusals, two of these would cancel.
    proxy.inject({
      transportFaults: {
        count: 1_000,
        kinds: ['http_429', 'http_503', 'reset', 'rpc_limit', 'rpc_internal'],
        methods: ['eth_sendRawTransaction'],
      },
    });
    const { transfer } = await send({ from: sender.address, to: recipient, amount: parseEther('1') });
    for (let i = 0; i < 9; i++) await reconcile();
    const held = await transferRow(transfer.id);
    expect(held).toMatchObject({ status: 'signed', transportFailures: 10, broadcastFailures: 0 });
    expect(held.error).toMatch(/^transport: /);
    expect((await attemptsOf(transfer.id)).map((a) => a.kind)).toEqual(['original']);
    expect(Object.keys(proxy.counts()).sort()).toEqual(
      ['transport_http_429', 'transport_http_503', 'transport_reset', 'transport_rpc_internal', 'transport_rpc_limit'].sort(),
    );
    // Backed off: the next look is minutes away, not the usual 3 s.
    expect(held.nextCheckAt.getTime() - Date.now()).toBeGreaterThan(0.8 * SEND_BACKOFF_MAX_MS - 5_000);

    // Past TRANSFER_SEND_BUDGET_MINUTES (30) of this: an error-level log, and still no cancel.
    const errors = vi.spyOn(log, 'error');
    try {
      await reconcileDueTransfers({ ignoreSchedule: true, now: new Date(Date.now() + 31 * 60_000) });
      expect(errors).toHaveBeenCalledWith(
        expect.stringMatching(/not accepted by any node within the send budget/),
        expect.objectContaining({ transferId: transfer.id, failures: 11 }),
      );
    } finally {
      errors.mockRestore();
    }
    expect((await attemptsOf(transfer.id)).map((a) => a.kind)).toEqual(['original']);

    proxy.inject({}); // the provider recovers
    expect(await settleToDepth(transfer.id)).toBe('confirmed');
    const landed = await transferRow(transfer.id);
    expect(landed).toMatchObject({ txHash: transfer.txHash, transportFailures: 0, transportFailingSince: null, error: null });
    expect(await client.getBalance({ address: recipient })).toBe(parseEther('1'));
    expect(await client.getTransactionCount({ address: sender.address })).toBe(transfer.nonce + 1);
  });

  it('definite refusals still cancel after the threshold, whatever transport errors came before', async () => {
    const sender = await funded();
    const { transfer } = await send({ from: sender.address, amount: parseEther('5'), submit: false });
    proxy.inject({ transportFaults: { count: 1_000, kinds: ['http_429', 'rpc_limit'], methods: ['eth_sendRawTransaction'] } });
    await submitTransfer({ transfer });
    await reconcile();
    await reconcile();
    expect(await transferRow(transfer.id)).toMatchObject({ status: 'signed', transportFailures: 3, broadcastFailures: 0 });
    proxy.inject({});
    // The funds leave: the node now refuses it (insufficient funds), a definite refusal.
    await rpc('anvil_setBalance', [sender.address, `0x${parseEther('0.01').toString(16)}`]);
    await reconcile();
    // One refusal after three transport errors: not yet canceled (had they counted, it would be by now).
    expect(await transferRow(transfer.id)).toMatchObject({ status: 'signed', broadcastFailures: 1 });
    expect((await attemptsOf(transfer.id)).map((a) => a.kind)).toEqual(['original']);
    await reconcile(); // the second refusal: the cancel is signed and sent
    expect((await attemptsOf(transfer.id)).map((a) => a.kind)).toContain('cancel');
    expect(await settleToDepth(transfer.id)).toBe('failed');
    expect((await transferRow(transfer.id)).error).toMatch(/canceled/);
  });
  it('a gas top-up refused for funds (the tank dry, or a node behind the balancer that thinks so) is never canceled: it waits, and the spend behind it lands', async () => {
    const sender = await funded({ native: 0n });
    const to = stranger();
    const recorded = await send({
      from: sender.address,
      to,
      token: USDT,
      amount: 1_000_000n,
      sponsor: { userId: sender.userId },
      submit: false,
    });
    proxy.inject({ refuseSends: 4 });
    await submitTransfer(recorded, { waitForGasMs: 0 });
    // TRANSFER_CANCEL_AFTER_FAILURES is 2 in this file: as refusals of any other transfer, these would cancel it.
    for (let i = 0; i < 3; i++) await reconcile();
    expect(proxy.counts().refused_send).toBe(4);
    const topUp = await transferRow(recorded.gasTopUp!.id);
    expect(topUp).toMatchObject({ status: 'signed', error: expect.stringMatching(/insufficient_funds/) });
    expect((await attemptsOf(topUp.id)).map((a) => a.kind)).toEqual(['original']);
    expect((await transferRow(recorded.transfer.id)).status).toBe('signed');
    proxy.inject({}); // the tank is funded (or the node catches up)
    for (const id of [recorded.gasTopUp!.id, recorded.transfer.id]) {
      await reconcile();
      expect(await settleToDepth(id)).toBe('confirmed');
    }
    const usdt = await client.readContract({ address: USDT.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [to] });
    expect(usdt).toBe(1_000_000n);
  });
});
