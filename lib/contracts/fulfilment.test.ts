/**
 * The Contracts tab end to end on the local Polygon node: a real ERC-1155 (contracts/GameItems.sol,
 * OpenZeppelin AccessControl) is registered, a rule binds mint(to, id, amount) to the charge, a charge is
 * paid on chain, and the item is minted to the payer exactly once — by the job and the transaction
 * engine, also when the worker is killed between the payment and the mint, or between recording the
 * mint and broadcasting it. Only item contracts and mint-like functions (finding N3): tokens and
 * token-moving selectors are refused, also for rules saved before; only an owner with step-up changes
 * contracts and rules, and the owners are e-mailed. A charge of a publishable key fires a rule only with
 * a price list it meets (N4).
 */
import { spawn } from 'node:child_process';
import { and, eq } from 'drizzle-orm';
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeEach, describe, expect, it } from 'vitest';
import gameBadgesArtifact from '@/lib/chains/artifacts/GameBadges.json' with { type: 'json' };
import gameItemsArtifact from '@/lib/chains/artifacts/GameItems.json' with { type: 'json' };
import nativeForwarderArtifact from '@/lib/chains/artifacts/NativeForwarder.json' with { type: 'json' };
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import demoTokenArtifact from '@/lib/chains/artifacts/DemoToken.json' with { type: 'json' };
import {
  chargeEvents,
  charges,
  depositAddresses,
  fulfilmentRules,
  fulfilments,
  merchantMembers,
  merchantTokens,
  outboundTransfers,
  webhookEvents,
} from '@/lib/db/schema';
import { resetEnvCache, rpcUrl } from '@/lib/env';
import { fundLocalWallet, localMinterAccount } from '@/scripts/stack/local-chain';
import { pollChain } from '@/lib/payments/poll-chain';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { addCustomToken } from '@/lib/merchants/tokens';
import { readOutbox } from '@/lib/notifications/outbox';
import { appError, newUser, userRow } from '@/test/accounts';
import { createTestCharge, newMerchant, newPublishableKey, serveChainsWithoutNode, type TestMerchant } from '@/test/fixtures';
import { createFulfilmentRule } from './create-rule';
import { listContracts } from './list-contracts';
import { registerContract } from './register-contract';
import { fulfilChargeNow, retryFulfilment } from './retry-fulfilment';
import { startDueFulfilments } from './start-fulfilments';
import { setRuleEnabled } from './list-contracts';

const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
const url = () => rpcUrl('POLYGON')!;
const client = () => createPublicClient({ transport: http(url()) });
const send = async (account: ReturnType<typeof privateKeyToAccount> | typeof localMinterAccount, call: Record<string, unknown>) => {
  const wallet = createWalletClient({ account, transport: http(url()) });
  const hash = await wallet.writeContract({ ...call, chain: null } as never);
  await client().waitForTransactionReceipt({ hash });
};

let merchant: TestMerchant;
let owner: string;
let developer: string;
let serviceWallet: Address;
const OWNER_PIN = '482915';
/** An owner confirming with their PIN: what registering a contract and changing rules need. */
const live = () => ({ userId: owner, merchantId: merchant.id, mode: 'live' as const, stepUp: { pin: OWNER_PIN } });

async function plant(bytecode: string): Promise<Address> {
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await client().request({ method: 'anvil_setCode' as never, params: [address, bytecode] as never });
  return address;
}

/** A GameItems ERC-1155 at a fresh address; `minter` gets MINTER_ROLE. */
async function deployGameItems(minter?: Address): Promise<Address> {
  const address = await plant(gameItemsArtifact.deployedBytecode);
  await send(localMinterAccount, {
    address,
    abi: gameItemsArtifact.abi,
    functionName: 'initialize',
    args: ['Demo items', 'ITEM', 'https://game.example/items/{id}.json', localMinterAccount.address],
  });
  if (minter) await grantMinter(address, minter);
  return address;
}

/** A GameBadges ERC-721 (safeMint(to), ids from 1) at a fresh address; `minter` gets MINTER_ROLE. */
async function deployGameBadges(minter: Address): Promise<Address> {
  const address = await plant(gameBadgesArtifact.deployedBytecode);
  await send(localMinterAccount, { address, abi: gameBadgesArtifact.abi, functionName: 'initialize', args: [localMinterAccount.address] });
  const role = (await client().readContract({ address, abi: gameBadgesArtifact.abi, functionName: 'MINTER_ROLE' })) as Hex;
  await send(localMinterAccount, { address, abi: gameBadgesArtifact.abi, functionName: 'grantRole', args: [role, minter] });
  return address;
}

async function grantMinter(contract: Address, account: Address): Promise<void> {
  const role = (await client().readContract({ address: contract, abi: gameItemsArtifact.abi, functionName: 'MINTER_ROLE' })) as Hex;
  await send(localMinterAccount, { address: contract, abi: gameItemsArtifact.abi, functionName: 'grantRole', args: [role, account] });
}

const itemBalance = async (contract: Address, owner: Address, id: bigint) =>
  (await client().readContract({ address: contract, abi: gameItemsArtifact.abi, functionName: 'balanceOf', args: [owner, id] })) as bigint;

async function freshPayer() {
  const account = privateKeyToAccount(generatePrivateKey());
  await fundLocalWallet({ chain: 'POLYGON', url: url(), address: account.address });
  return account;
}

async function createCharge(chargeData: Record<string, unknown>, apiKey = merchant.liveKey!): Promise<string> {
  const { chargeId } = await createTestCharge({
    apiKey,
    body: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, ...chargeData } },
  });
  return chargeId;
}

/** Pays the charge by a plain ERC-20 transfer from `payer` (no watcher pass). */
async function payOnChain(chargeId: string, payer: ReturnType<typeof privateKeyToAccount>, amount: bigint): Promise<void> {
  const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
  await send(payer, { address: USDC.address, abi: erc20Abi, functionName: 'transfer', args: [deposit!.address, amount] });
}

async function chargeStatus(chargeId: string) {
  const [row] = await getDb().select({ status: charges.status }).from(charges).where(eq(charges.id, chargeId));
  return row!.status;
}

async function settleCharge(chargeId: string): Promise<void> {
  for (let i = 0; i < 40 && (await chargeStatus(chargeId)) !== 'succeeded'; i++) {
    await pollChain('POLYGON');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(await chargeStatus(chargeId)).toBe('succeeded');
}

async function fulfilmentsOf(chargeId: string) {
  return getDb().select().from(fulfilments).where(eq(fulfilments.chargeId, chargeId));
}

/** Runs the job and the engine until the charge's fulfilments end. */
async function runUntilSettled(chargeId: string) {
  for (let i = 0; i < 60; i++) {
    await startDueFulfilments();
    await reconcileDueTransfers({ ignoreSchedule: true });
    const rows = await fulfilmentsOf(chargeId);
    if (rows.length && rows.every((row) => row.status === 'succeeded' || row.status === 'failed')) return rows;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`fulfilments of ${chargeId} did not settle: ${JSON.stringify(await fulfilmentsOf(chargeId))}`);
}

const mintRule = (contractId: string) => ({
  contractId,
  function: 'mint(address,uint256,uint256)',
  bindings: [{ source: 'recipient' }, { source: 'metadata', key: 'itemId' }, { source: 'quantity' }],
});

function runScript(script: string, args: string[]): Promise<{ signal: NodeJS.Signals | null; output: string }> {
  const child = spawn(process.execPath, ['--conditions=react-server', '--import', 'tsx', script, ...args], {
    env: { ...process.env, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ signal, output })));
}

// A merchant per test: a merchant's rules apply to all its charges.
beforeEach(async () => {
  merchant = await newMerchant();
  owner = await newUser({ pin: OWNER_PIN });
  await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: owner, role: 'owner' });
  developer = await newUser();
  await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: developer, role: 'developer' });
  serviceWallet = (await ensureMerchantWallets(getDb(), merchant.id)).find((w) => w.family === 'evm')!.address as Address;
});

describe('registering a contract', () => {
  it('reads an ERC-1155 on chain: its interfaces, name, mint function, and whether the service wallet may mint', async () => {
    const address = await deployGameItems();
    const row = await registerContract({ ...live(), values: { chain: 'POLYGON', address: address.toLowerCase() } });
    expect(row).toMatchObject({ kind: 'erc1155', name: 'Demo items', symbol: 'ITEM', address, chain: 'POLYGON', mode: 'live' });
    expect(row.interfaces).toEqual(expect.arrayContaining(['erc165', 'erc1155', 'erc1155_metadata', 'access_control']));
    expect(row.functions.map((fn) => `${fn.name}(${fn.inputs.map((i) => i.type).join(',')})`)).toEqual(['mint(address,uint256,uint256)']);

    const before = (await listContracts(live())).contracts.find((c) => c.id === row.id)!;
    expect(before.minter).toMatchObject({ mechanism: 'access_control', held: false });
    await grantMinter(address, serviceWallet);
    const after = await listContracts(live());
    expect(after.serviceWallet).toBe(serviceWallet);
    expect(after.contracts.find((c) => c.id === row.id)!.minter.held).toBe(true);
  });

  it('reads an ERC-721 by its ERC-165 interfaces; a safeMint(to) rule mints one token to the payer', async () => {
    const badges = await deployGameBadges(serviceWallet);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: badges } });
    expect(contract).toMatchObject({ kind: 'erc721', name: 'Game badges', symbol: 'BADGE', decimals: null, hasUploadedAbi: false });
    expect(contract.interfaces).toEqual(expect.arrayContaining(['erc165', 'erc721', 'erc721_metadata', 'access_control']));
    expect(contract.functions.map((fn) => `${fn.name}(${fn.inputs.map((i) => i.type).join(',')})`)).toEqual(['safeMint(address)']);
    expect((await listContracts(live())).contracts.find((c) => c.id === contract.id)!.minter).toMatchObject({ held: true });

    const unbindable = await appError(
      createFulfilmentRule({
        ...live(),
        values: { contractId: contract.id, function: 'safeMint(address)', bindings: [{ source: 'quantity' }] },
      }),
    );
    expect(unbindable).toMatchObject({ code: 'argument_not_bindable', param: 'bindings.0' });
    await createFulfilmentRule({
      ...live(),
      values: { contractId: contract.id, function: 'safeMint(address)', bindings: [{ source: 'recipient' }] },
    });

    const payer = await freshPayer();
    const chargeId = await createCharge({ items: [{ name: 'Founder badge', amount: '1', quantity: 1 }] });
    await payOnChain(chargeId, payer, 1_000_000n);
    await settleCharge(chargeId);
    const [done] = await runUntilSettled(chargeId);
    expect(done).toMatchObject({ status: 'succeeded', recipient: payer.address, args: [payer.address] });
    const read = (functionName: string, args: unknown[]) =>
      client().readContract({ address: badges, abi: gameBadgesArtifact.abi, functionName, args });
    expect(await read('balanceOf', [payer.address])).toBe(1n);
    expect(await read('ownerOf', [1n])).toBe(payer.address);
  });

  it('refuses a network token (USDC): contract_is_token, before any step-up', async () => {
    const refused = await appError(registerContract({ ...live(), values: { chain: 'POLYGON', address: USDC.address } }));
    expect(refused).toMatchObject({ code: 'contract_is_token', status: 422, param: 'address' });
    expect(refused.message).toContain('is USDC, a token Chargeport accepts');
  });

  it('refuses a custom token of the Tokens tab, an ERC-20 the wallet holds, and any contract the wallet holds', async () => {
    const plantToken = async (symbol: string) => {
      const token = await plant(demoTokenArtifact.deployedBytecode);
      await send(localMinterAccount, {
        address: token,
        abi: demoTokenArtifact.abi,
        functionName: 'initialize',
        args: [symbol, symbol, 18, localMinterAccount.address],
      });
      return token;
    };
    const gem = await plantToken('GEM');
    await addCustomToken({ userId: developer, merchantId: merchant.id, chain: 'POLYGON', address: gem });
    const custom = await appError(registerContract({ ...live(), values: { chain: 'POLYGON', address: gem } }));
    expect(custom).toMatchObject({ code: 'contract_is_token', status: 422 });
    expect(custom.message).toContain('is the custom token GEM');

    // Not on any list, but an ERC-20 the service wallet holds.
    const held = await plantToken('HELD');
    await send(localMinterAccount, { address: held, abi: demoTokenArtifact.abi, functionName: 'mint', args: [serviceWallet, 5n] });
    const erc20 = await appError(registerContract({ ...live(), values: { chain: 'POLYGON', address: held } }));
    expect(erc20).toMatchObject({ code: 'contract_is_token' });
    expect(erc20.message).toContain('is an ERC-20 token');

    // Not an ERC-20 at all (an ERC-721), but the service wallet holds one of its tokens.
    const badges = await deployGameBadges(localMinterAccount.address);
    await send(localMinterAccount, { address: badges, abi: gameBadgesArtifact.abi, functionName: 'safeMint', args: [serviceWallet] });
    const holding = await appError(registerContract({ ...live(), values: { chain: 'POLYGON', address: badges } }));
    expect(holding).toMatchObject({ code: 'contract_is_token' });
    expect(holding.message).toContain(`reports a balance of 1 for your service wallet ${serviceWallet}`);
  });

  it('refuses an address with no code, an unrecognised contract without ABI, a network of the other mode', async () => {
    const empty = privateKeyToAccount(generatePrivateKey()).address;
    const noCode = await appError(registerContract({ ...live(), values: { chain: 'POLYGON', address: empty } }));
    expect(noCode).toMatchObject({ code: 'contract_not_found', status: 422, param: 'address' });
    expect(noCode.message).toContain('has no contract code on Polygon');

    const forwarder = await plant(nativeForwarderArtifact.deployedBytecode);
    const unknown = await appError(registerContract({ ...live(), values: { chain: 'POLYGON', address: forwarder } }));
    expect(unknown).toMatchObject({ code: 'abi_required', param: 'abi' });
    const withAbi = await registerContract({
      ...live(),
      values: { chain: 'POLYGON', address: forwarder, abi: JSON.stringify(nativeForwarderArtifact.abi) },
    });
    expect(withAbi).toMatchObject({ kind: 'other', hasUploadedAbi: true });
    expect(withAbi.functions.length).toBeGreaterThan(0);

    const badAbi = await appError(
      registerContract({ ...live(), values: { chain: 'POLYGON', address: forwarder, abi: '{"not":"an abi"' } }),
    );
    expect(badAbi).toMatchObject({ code: 'invalid_abi', status: 422 });
    const testnet = await appError(registerContract({ ...live(), values: { chain: 'POLYGON_AMOY', address: forwarder } }));
    expect(testnet).toMatchObject({ code: 'unsupported_chain', param: 'chain' });
    const garbled = await appError(registerContract({ ...live(), values: { chain: 'POLYGON', address: '0x1234' } }));
    expect(garbled).toMatchObject({ code: 'invalid_address' });
  });

  it('a viewer cannot register', async () => {
    const viewer = await newUser();
    await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: viewer, role: 'viewer' });
    const error = await appError(registerContract({ ...live(), userId: viewer, values: { chain: 'POLYGON', address: USDC.address } }));
    expect(error.code).toBe('forbidden');
  });
});

describe('fulfilment rules', () => {
  it('refuses a function the contract does not have and arguments that cannot be bound', async () => {
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: await deployGameItems() } });
    const rule = (values: Record<string, unknown>) => createFulfilmentRule({ ...live(), values: { contractId: contract.id, ...values } });

    const missing = await appError(rule({ function: 'burn(address,uint256,uint256)', bindings: [] }));
    expect(missing).toMatchObject({ code: 'function_not_found', param: 'function' });
    expect(missing.message).toContain('not in the contract’s code');
    const overload = await appError(
      rule({ function: 'mint(address,uint256)', bindings: [{ source: 'recipient' }, { source: 'quantity' }] }),
    );
    expect(overload.message).toContain('mint(address,uint256,uint256)');

    const count = await appError(rule({ function: 'mint(address,uint256,uint256)', bindings: [{ source: 'recipient' }] }));
    expect(count).toMatchObject({ code: 'argument_not_bindable', param: 'bindings' });
    const wrongType = await appError(
      rule({
        function: 'mint(address,uint256,uint256)',
        bindings: [{ source: 'quantity' }, { source: 'quantity' }, { source: 'quantity' }],
      }),
    );
    expect(wrongType).toMatchObject({ code: 'argument_not_bindable', param: 'bindings.0' });
    expect(wrongType.message).toContain('to (address) cannot take the quantity');
    const badValue = await appError(
      rule({
        function: 'mint(address,uint256,uint256)',
        bindings: [{ source: 'recipient' }, { source: 'value', value: 'sword' }, { source: 'quantity' }],
      }),
    );
    expect(badValue).toMatchObject({ code: 'argument_not_bindable', param: 'bindings.1' });
    expect(badValue.message).toContain('is not a whole number');
  });
});

describe('fulfilling a succeeded charge', () => {
  it('mints the item to the payer exactly once, with the timeline and fulfilment.succeeded', async () => {
    const items = await deployGameItems(serviceWallet);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    const rule = await createFulfilmentRule({ ...live(), values: mintRule(contract.id) });
    expect(rule.requiredMetadataKeys).toEqual(['itemId']);

    const payer = await freshPayer();
    const chargeId = await createCharge({ items: [{ name: 'Sword', amount: '1', quantity: 2 }], metadata: { itemId: '7' } });
    // A charge without the metadata key the rule reads is not the rule's business.
    const otherId = await createCharge({ items: [{ name: 'Gold', amount: '1', quantity: 1 }] });
    await payOnChain(chargeId, payer, 2_000_000n);
    await payOnChain(otherId, payer, 1_000_000n);
    await settleCharge(chargeId);
    await settleCharge(otherId);
    // Armed by the database in the transaction that made the charge succeed, before any job ran.
    expect(await fulfilmentsOf(chargeId)).toMatchObject([{ ruleId: rule.id, status: 'pending', transferId: null }]);
    expect(await fulfilmentsOf(otherId)).toEqual([]);

    const [done] = await runUntilSettled(chargeId);
    expect(done).toMatchObject({ status: 'succeeded', recipient: payer.address, args: [payer.address, '7', '2'], attempts: 1 });
    expect(await itemBalance(items, payer.address, 7n)).toBe(2n);

    // More passes of the job and the engine change nothing.
    await startDueFulfilments();
    await reconcileDueTransfers({ ignoreSchedule: true });
    expect(await itemBalance(items, payer.address, 7n)).toBe(2n);
    const calls = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'fulfilment')));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ fromAddress: serviceWallet, callTo: items, amountBaseUnits: 0n, status: 'confirmed' });

    const timeline = (await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId))).map((e) => e.type);
    expect(timeline).toEqual(expect.arrayContaining(['charge.fulfilment_submitted', 'charge.fulfilled']));
    const [event] = await getDb()
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, 'fulfilment.succeeded')));
    expect(event!.payload).toMatchObject({
      type: 'fulfilment.succeeded',
      data: {
        charge: { id: chargeId, status: 'succeeded' },
        fulfilment: {
          status: 'succeeded',
          function: 'mint(address,uint256,uint256)',
          recipient: payer.address,
          transactionHash: calls[0]!.txHash,
        },
      },
    });
  });

  it('without the minter role: failed with the reason and nothing sent; after the grant, Retry mints once', async () => {
    const items = await deployGameItems();
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    await createFulfilmentRule({ ...live(), values: mintRule(contract.id) });
    const payer = await freshPayer();
    const chargeId = await createCharge({ items: [{ name: 'Shield', amount: '1', quantity: 1 }], metadata: { itemId: '3' } });
    await payOnChain(chargeId, payer, 1_000_000n);
    await settleCharge(chargeId);

    const [failed] = await runUntilSettled(chargeId);
    expect(failed!.status).toBe('failed');
    expect(failed!.failureReason).toContain(`the service wallet ${serviceWallet} lacks the role`);
    expect(failed!.transferId).toBeNull();
    const [failedEvent] = await getDb()
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, 'fulfilment.failed')));
    expect(failedEvent!.payload).toMatchObject({ data: { fulfilment: { status: 'failed', failureReason: failed!.failureReason } } });

    await grantMinter(items, serviceWallet);
    await retryFulfilment({ ...live(), fulfilmentId: failed!.id });
    const [retried] = await runUntilSettled(chargeId);
    expect(retried).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect(await itemBalance(items, payer.address, 3n)).toBe(1n);
    const again = await appError(retryFulfilment({ ...live(), fulfilmentId: failed!.id }));
    expect(again).toMatchObject({ code: 'fulfilment_not_retryable', status: 409 });
  });

  it('fulfil now: refuses a charge paid on another network than the contract, and a second fulfilment by the same rule', async () => {
    serveChainsWithoutNode('BSC');
    const items = await deployGameItems(serviceWallet);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    const rule = await createFulfilmentRule({
      ...live(),
      values: {
        contractId: contract.id,
        function: 'mint(address,uint256,uint256)',
        bindings: [{ source: 'recipient' }, { source: 'value', value: '1' }, { source: 'quantity' }],
      },
    });
    const { chargeId: bscChargeId } = await createTestCharge({
      apiKey: merchant.liveKey!,
      body: { chargeData: { symbol: 'BNB', chain: 'BSC', tokenAddress: '0x0000000000000000000000000000000000000000', amount: '0.01' } },
    });
    await getDb().update(charges).set({ status: 'processing' }).where(eq(charges.id, bscChargeId));
    await getDb().update(charges).set({ status: 'succeeded' }).where(eq(charges.id, bscChargeId));
    expect(await fulfilmentsOf(bscChargeId)).toEqual([]); // a POLYGON rule is not armed for a BSC charge
    const mismatch = await appError(fulfilChargeNow({ ...live(), chargeId: bscChargeId, ruleId: rule.id }));
    expect(mismatch).toMatchObject({ code: 'contract_chain_mismatch', status: 422 });
    expect(mismatch.message).toContain('on Polygon, and this charge was paid on BNB Smart Chain');

    const payer = await freshPayer();
    const chargeId = await createCharge({ items: [{ name: 'Bow', amount: '1', quantity: 1 }] });
    await payOnChain(chargeId, payer, 1_000_000n);
    await settleCharge(chargeId);
    await runUntilSettled(chargeId);
    const twice = await appError(fulfilChargeNow({ ...live(), chargeId, ruleId: rule.id }));
    expect(twice).toMatchObject({ code: 'fulfilment_exists', status: 409 });
    expect(await itemBalance(items, payer.address, 1n)).toBe(1n);
  });

  it('a call above the fulfilment gas cap (FULFILMENT_GAS_LIMIT_MAX, lower than the gas tank’s) is not sent (N18)', async () => {
    const items = await deployGameItems(serviceWallet);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    await createFulfilmentRule({ ...live(), values: mintRule(contract.id) });
    const payer = await freshPayer();
    const chargeId = await createCharge({ items: [{ name: 'Lance', amount: '1', quantity: 1 }], metadata: { itemId: '5' } });
    await payOnChain(chargeId, payer, 1_000_000n);
    await settleCharge(chargeId);
    process.env.FULFILMENT_GAS_LIMIT_MAX = '30000'; // a first ERC-1155 mint needs more
    resetEnvCache();
    try {
      const [capped] = await runUntilSettled(chargeId);
      expect(capped).toMatchObject({ status: 'failed', transferId: null });
      expect(capped!.failureReason).toMatch(/gas, more than the 30000 a fulfilment may use/);
    } finally {
      delete process.env.FULFILMENT_GAS_LIMIT_MAX;
      resetEnvCache();
    }
    expect(await itemBalance(items, payer.address, 5n)).toBe(0n);
  });

  it('kill -9 between the charge succeeding and the job, and between recording the mint and its broadcast: minted once', async () => {
    const items = await deployGameItems(serviceWallet);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    await createFulfilmentRule({ ...live(), values: mintRule(contract.id) });
    const payer = await freshPayer();
    const chargeId = await createCharge({ items: [{ name: 'Potion', amount: '1', quantity: 5 }], metadata: { itemId: '42' } });
    await payOnChain(chargeId, payer, 5_000_000n);

    // A worker makes the charge succeed and dies at once: the fulfilment exists, nothing of it ran.
    for (let i = 0; i < 10 && (await chargeStatus(chargeId)) !== 'succeeded'; i++) {
      const watcher = await runScript('test/settle-charge-then-die.mts', ['POLYGON']);
      expect(watcher.signal, watcher.output).toBe('SIGKILL');
    }
    expect(await chargeStatus(chargeId)).toBe('succeeded');
    const [armed] = await fulfilmentsOf(chargeId);
    expect(armed).toMatchObject({ status: 'pending', transferId: null });

    // A worker records the mint and dies before broadcasting it.
    const worker = await runScript('test/record-fulfilment-then-die.mts', [armed!.id]);
    expect(worker.signal, worker.output).toBe('SIGKILL');
    expect(worker.output).toContain('recorded: submitted');
    const [recorded] = await fulfilmentsOf(chargeId);
    expect(recorded).toMatchObject({ status: 'submitted' });
    const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, recorded!.transferId!));
    expect(transfer!.status).toBe('signed');
    expect(
      await client()
        .getTransactionReceipt({ hash: transfer!.txHash as Hex })
        .catch(() => null),
    ).toBeNull();
    expect(await itemBalance(items, payer.address, 42n)).toBe(0n);

    // Another process's job finds nothing to start; the engine broadcasts the recorded bytes.
    const [done] = await runUntilSettled(chargeId);
    expect(done).toMatchObject({ status: 'succeeded', transferId: transfer!.id, attempts: 1 });
    expect(await itemBalance(items, payer.address, 42n)).toBe(5n);
    const calls = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'fulfilment')));
    expect(calls).toHaveLength(1);
  }, 90_000); // spawns worker processes: slow on a loaded 2-core machine
});

describe('only an owner with step-up changes contracts and rules (N3)', () => {
  it('a developer and an admin cannot register or add a rule; an owner needs their PIN; with it, every owner is e-mailed', async () => {
    const items = await deployGameItems();
    const admin = await newUser({ pin: OWNER_PIN });
    const secondOwner = await newUser();
    await getDb()
      .insert(merchantMembers)
      .values([
        { merchantId: merchant.id, userId: admin, role: 'admin' },
        { merchantId: merchant.id, userId: secondOwner, role: 'owner' },
      ]);
    for (const userId of [developer, admin]) {
      const refused = await appError(registerContract({ ...live(), userId, values: { chain: 'POLYGON', address: items } }));
      expect(refused).toMatchObject({ code: 'forbidden', status: 403 });
      expect(refused.message).toContain('ask an owner');
    }
    const noStepUp = await appError(registerContract({ ...live(), stepUp: undefined, values: { chain: 'POLYGON', address: items } }));
    expect(noStepUp).toMatchObject({ code: 'step_up_required', param: 'pin' });
    const wrongPin = await appError(
      registerContract({ ...live(), stepUp: { pin: '000000' }, values: { chain: 'POLYGON', address: items } }),
    );
    expect(wrongPin.code).toBe('pin_incorrect');
    expect((await listContracts(live())).contracts).toEqual([]);

    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    for (const userId of [developer, admin]) {
      const refused = await appError(createFulfilmentRule({ ...live(), userId, values: mintRule(contract.id) }));
      expect(refused).toMatchObject({ code: 'forbidden', status: 403 });
    }
    const ruleWithoutStepUp = await appError(createFulfilmentRule({ ...live(), stepUp: {}, values: mintRule(contract.id) }));
    expect(ruleWithoutStepUp).toMatchObject({ code: 'step_up_required' });
    expect(await getDb().select().from(fulfilmentRules).where(eq(fulfilmentRules.contractId, contract.id))).toEqual([]);

    const rule = await createFulfilmentRule({ ...live(), values: mintRule(contract.id) });
    const pauseByDeveloper = await appError(setRuleEnabled({ ...live(), userId: developer, ruleId: rule.id, enabled: false }));
    expect(pauseByDeveloper.code).toBe('forbidden');
    const pauseWithoutStepUp = await appError(setRuleEnabled({ ...live(), stepUp: {}, ruleId: rule.id, enabled: false }));
    expect(pauseWithoutStepUp.code).toBe('step_up_required');
    await setRuleEnabled({ ...live(), ruleId: rule.id, enabled: false });

    // Both owners (the one acting and the other) hear of each change; the admin does not.
    const owners = await getDb()
      .select({ userId: merchantMembers.userId })
      .from(merchantMembers)
      .where(and(eq(merchantMembers.merchantId, merchant.id), eq(merchantMembers.role, 'owner')));
    expect(owners).toHaveLength(2);
    for (const { userId } of owners) {
      const subjects = readOutbox('email', (await userRow(userId)).email!).map((m) => m.subject ?? '');
      expect(subjects).toEqual(
        expect.arrayContaining([
          expect.stringContaining(`contract ${items} registered for fulfilment (live mode)`),
          expect.stringContaining('fulfilment rule added: mint(address,uint256,uint256) (live mode)'),
          expect.stringContaining('fulfilment rule paused: mint(address,uint256,uint256)'),
        ]),
      );
    }
    const adminMail = readOutbox('email', (await userRow(admin)).email!);
    expect(adminMail).toEqual([]);
  });
});

describe('token-moving functions are refused by selector (N3)', () => {
  it('approve and transfer, typed or under another name in an uploaded ABI, are never saved as rules', async () => {
    const items = await registerContract({ ...live(), values: { chain: 'POLYGON', address: await deployGameItems() } });
    for (const fn of ['approve(address,uint256)', 'transfer(address,uint256)', 'setApprovalForAll(address,bool)']) {
      const refused = await appError(
        createFulfilmentRule({
          ...live(),
          values: { contractId: items.id, function: fn, bindings: [{ source: 'recipient' }, { source: 'quantity' }] },
        }),
      );
      expect(refused).toMatchObject({ code: 'function_moves_tokens', status: 422, param: 'function' });
    }

    // Names whose selectors are approve's and transfer's: what the contract dispatches on is the selector.
    const renamed = [
      {
        type: 'function',
        name: 'watch_tg_invmru_2f69f1b',
        inputs: [
          { name: 'to', type: 'address' },
          { name: 'spender', type: 'address' },
        ],
        outputs: [],
        stateMutability: 'nonpayable',
      },
      {
        type: 'function',
        name: 'join_tg_invmru_haha_fd06787',
        inputs: [
          { name: 'to', type: 'address' },
          { name: 'flag', type: 'bool' },
        ],
        outputs: [],
        stateMutability: 'nonpayable',
      },
      { type: 'function', name: 'grantItem', inputs: [{ name: 'to', type: 'address' }], outputs: [], stateMutability: 'nonpayable' },
    ];
    const forwarder = await plant(nativeForwarderArtifact.deployedBytecode);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: forwarder, abi: JSON.stringify(renamed) } });
    // Never offered in the tab either.
    expect(contract.functions.map((fn) => fn.name)).toEqual(['grantItem']);
    const asApprove = await appError(
      createFulfilmentRule({
        ...live(),
        values: {
          contractId: contract.id,
          function: 'watch_tg_invmru_2f69f1b(address,address)',
          bindings: [{ source: 'value', value: serviceWallet }, { source: 'recipient' }],
        },
      }),
    );
    expect(asApprove).toMatchObject({ code: 'function_moves_tokens' });
    expect(asApprove.message).toContain('has the selector of approve(address,uint256)');
    const asTransfer = await appError(
      createFulfilmentRule({
        ...live(),
        values: {
          contractId: contract.id,
          function: 'join_tg_invmru_haha_fd06787(address,bool)',
          bindings: [{ source: 'recipient' }, { source: 'value', value: 'true' }],
        },
      }),
    );
    expect(asTransfer.message).toContain('has the selector of transfer(address,uint256)');
  });

  it('a token-moving rule saved before the check is never sent: not by the job, not by Fulfil now', async () => {
    const items = await deployGameItems(serviceWallet);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    const legacy = (id: string, name: string) =>
      getDb()
        .insert(fulfilmentRules)
        .values({
          id,
          merchantId: merchant.id,
          mode: 'live',
          contractId: contract.id,
          functionSignature: `${name}(address,uint256)`,
          functionAbi: {
            type: 'function',
            name,
            inputs: [
              { name: 'spender', type: 'address' },
              { name: 'amount', type: 'uint256' },
            ],
            outputs: [],
            stateMutability: 'nonpayable',
          },
          bindings: [
            { source: 'value', value: '0x000000000000000000000000000000000000dEaD' },
            { source: 'value', value: '1000000' },
          ],
          enabled: true,
          createdBy: 'member:legacy',
        })
        .returning();
    const [armed] = await legacy(`fru_legacyApprove${Date.now()}`, 'approve');

    const payer = await freshPayer();
    const chargeId = await createCharge({ items: [{ name: 'Axe', amount: '1', quantity: 1 }] });
    await payOnChain(chargeId, payer, 1_000_000n);
    await settleCharge(chargeId);
    const [failed] = await runUntilSettled(chargeId);
    expect(failed).toMatchObject({ ruleId: armed!.id, status: 'failed', transferId: null });
    expect(failed!.failureReason).toContain('has the selector of approve(address,uint256)');

    await getDb().update(fulfilmentRules).set({ enabled: false }).where(eq(fulfilmentRules.id, armed!.id));
    const [manual] = await legacy(`fru_legacyTransfer${Date.now()}`, 'transfer');
    const now = await appError(fulfilChargeNow({ ...live(), chargeId, ruleId: manual!.id }));
    expect(now).toMatchObject({ code: 'function_moves_tokens', status: 422 });
    const calls = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'fulfilment')));
    expect(calls).toEqual([]);
  });
});

describe('a contract that became a known token after it was registered (N3)', () => {
  it('is not called: the job checks the network and custom tokens again before every call', async () => {
    const items = await deployGameItems(serviceWallet);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    await createFulfilmentRule({ ...live(), values: mintRule(contract.id) });
    // Someone adds it on the Tokens tab afterwards (any merchant's custom token counts).
    await getDb().insert(merchantTokens).values({
      merchantId: merchant.id,
      chain: 'POLYGON',
      address: items.toLowerCase(),
      symbol: 'ITEM',
      name: 'Items',
      decimals: 0,
      isCustom: true,
    });
    const payer = await freshPayer();
    const chargeId = await createCharge({ items: [{ name: 'Helm', amount: '1', quantity: 1 }], metadata: { itemId: '4' } });
    await payOnChain(chargeId, payer, 1_000_000n);
    await settleCharge(chargeId);
    const [refused] = await runUntilSettled(chargeId);
    expect(refused).toMatchObject({ status: 'failed', transferId: null });
    expect(refused!.failureReason).toContain(`${items} is the custom token ITEM`);
    expect(await itemBalance(items, payer.address, 4n)).toBe(0n);
  });
});

describe('charges whose price the payer set (publishable keys, N4)', () => {
  it('a rule without a price list does not fire on a publishable-key charge: nothing is sent, the reason is on the fulfilment', async () => {
    const items = await deployGameItems(serviceWallet);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    await createFulfilmentRule({ ...live(), values: mintRule(contract.id) });
    const publishable = await newPublishableKey(merchant.id, 'live');
    const payer = await freshPayer();
    const chargeId = await createCharge(
      { items: [{ name: 'Legendary', amount: '0.001', quantity: 1000 }], metadata: { itemId: '99' } },
      publishable,
    );
    await payOnChain(chargeId, payer, 1_000_000n);
    await settleCharge(chargeId);
    const [skipped] = await runUntilSettled(chargeId);
    expect(skipped).toMatchObject({ status: 'failed', transferId: null });
    expect(skipped!.failureReason).toContain('created with a publishable key');
    expect(await itemBalance(items, payer.address, 99n)).toBe(0n);
    const timeline = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, chargeId));
    expect(timeline.find((e) => e.type === 'charge.fulfilment_failed')?.data).toMatchObject({ reason: skipped!.failureReason });
  });

  it('with a price list, a charge below the minimum does not fire; one that meets it mints', async () => {
    const items = await deployGameItems(serviceWallet);
    const contract = await registerContract({ ...live(), values: { chain: 'POLYGON', address: items } });
    const badList = await appError(
      createFulfilmentRule({
        ...live(),
        values: {
          ...mintRule(contract.id),
          priceList: { token: 'USDC', itemId: 'metadata.sku', prices: [{ item: '7', minUnitPrice: '2' }] },
        },
      }),
    );
    expect(badList).toMatchObject({ code: 'invalid_price_list', param: 'priceList.itemId' });
    const payerQuantity = await appError(
      createFulfilmentRule({
        ...live(),
        values: {
          contractId: contract.id,
          function: 'mint(address,uint256,uint256)',
          bindings: [{ source: 'recipient' }, { source: 'metadata', key: 'itemId' }, { source: 'metadata', key: 'count' }],
          priceList: { token: 'USDC', itemId: 'metadata.itemId', prices: [{ item: '7', minUnitPrice: '2' }] },
        },
      }),
    );
    expect(payerQuantity).toMatchObject({ code: 'invalid_price_list', param: 'bindings.2' });
    const unknownToken = await appError(
      createFulfilmentRule({
        ...live(),
        values: {
          ...mintRule(contract.id),
          priceList: { token: 'DOGE', itemId: 'metadata.itemId', prices: [{ item: '7', minUnitPrice: '2' }] },
        },
      }),
    );
    expect(unknownToken).toMatchObject({ code: 'invalid_price_list', param: 'priceList.token' });
    const rule = await createFulfilmentRule({
      ...live(),
      values: {
        ...mintRule(contract.id),
        priceList: { token: 'USDC', itemId: 'metadata.itemId', prices: [{ item: '7', minUnitPrice: '2.5' }] },
      },
    });
    expect(rule.priceList).toMatchObject({
      tokenAddress: USDC.address,
      itemId: { source: 'metadata', key: 'itemId' },
      minUnitBaseUnits: { '7': '2500000' },
    });
    const publishable = await newPublishableKey(merchant.id, 'live');
    const payer = await freshPayer();

    // 2 units at 2 each: 4 < 2 × 2.5.
    const cheap = await createCharge({ items: [{ name: 'Sword', amount: '2', quantity: 2 }], metadata: { itemId: '7' } }, publishable);
    // An item the list does not price.
    const unlisted = await createCharge({ items: [{ name: 'Crown', amount: '3', quantity: 1 }], metadata: { itemId: '8' } }, publishable);
    // 2 units at 2.5: meets it.
    const fair = await createCharge({ items: [{ name: 'Sword', amount: '2.5', quantity: 2 }], metadata: { itemId: '7' } }, publishable);
    await payOnChain(cheap, payer, 4_000_000n);
    await payOnChain(unlisted, payer, 3_000_000n);
    await payOnChain(fair, payer, 5_000_000n);
    for (const id of [cheap, unlisted, fair]) await settleCharge(id);

    const [below] = await runUntilSettled(cheap);
    expect(below).toMatchObject({ status: 'failed', transferId: null });
    expect(below!.failureReason).toContain('total 4 USDC is below the price list’s 5 USDC');
    const [missing] = await runUntilSettled(unlisted);
    expect(missing!.failureReason).toContain('the item “8” (metadata.itemId) is not in the rule’s price list');
    expect(await itemBalance(items, payer.address, 8n)).toBe(0n);
    const [met] = await runUntilSettled(fair);
    expect(met).toMatchObject({ status: 'succeeded', args: [payer.address, '7', '2'] });
    expect(await itemBalance(items, payer.address, 7n)).toBe(2n);
  });
});
