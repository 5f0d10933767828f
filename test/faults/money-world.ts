/**
 * The world of the native-coin fault files (faults.test.ts, db-faults.test.ts, crash-outside-engine.test.ts): a
 * private database, a private DFK testnet node (confirmation depth 2) reached directly (the database and crash
 * files fault PostgreSQL and processes, not the RPC) or, with `faultProxy`, only through the RPC fault proxy
 * (faults.test.ts, which keeps its own scenarios and table), a verified merchant whose owner can withdraw, consumers with a
 * PIN, charges paid from outside, and the same audit as faults.test.ts: fresh recipients received exactly
 * what they were owed, charges' statuses and counted payments agree with the chain, every transfer of the
 * scenario ended confirmed, and the ledger reconciles (lib/ledger). The table of outcomes is printed and
 * written to .data/test-results/<file>.md.
 */
import postgres from 'postgres';
import { createPublicClient, http, parseEther, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { requiredConfirmations } from '@/lib/chains/required-confirmations';
import { CHAINS } from '@/lib/chains/registry';
import { resetEnvCache } from '@/lib/env';
import { newWithdrawalId } from '@/lib/merchants/withdraw';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { createTestCharge, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';
import {
  anvilOf,
  auditEvmScenario,
  byFaultClass,
  evmJobsOnce,
  firedText,
  merchantWithOwner,
  newUserWithPin,
  sendNativeOn,
  scenarioTest,
  settleChain,
  withdrawalForm,
  outcomeColumns,
  writeOutcomeTable,
  type Arrival,
  type OutcomeRow,
} from './harness';
import { startRpcFaultProxy, type RpcFaultProxy } from './rpc-fault-proxy';

export const CHAIN = 'DFK_TESTNET' as const;
export const JEWEL = CHAINS[CHAIN].tokens[0]!;

export interface World {
  node: LocalChainNode;
  chain: PublicClient;
  merchant: TestMerchant;
  ownerId: string;
  merchantWallet: Address;
  depth: number;
  funder: PrivateKeyAccount;
  /** A connection of the test's own (not the app's pool): it holds locks and watches pg_stat_activity. */
  admin: postgres.Sql;
  /** With `faultProxy`: the proxy between the app and the node (the suite drives the node directly). */
  proxy?: RpcFaultProxy;
}

let world: World | undefined;
export const w = (): World => world!;

const anvil = anvilOf(() => w().chain);
export const { rpc, mine, automine, setNativeBalance } = anvil;

/**
 * beforeAll: the private database and node, the merchant with its funded wallet; `faultProxy`: the app reaches the
 * node only through the RPC fault proxy, and a transfer refused 3 times is cancelled.
 */
export async function startWorld(prefix: string, options: { faultProxy?: boolean } = {}): Promise<World> {
  await switchToPrivateDatabase(prefix);
  const node = await startLocalChain({ chain: CHAIN });
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  const proxy = options.faultProxy ? await startRpcFaultProxy(node.url) : undefined;
  process.env.RPC_URL_DFK_TESTNET = proxy?.url ?? node.url;
  process.env.LOCAL_CHAINS = 'POLYGON,POLYGON_AMOY'; // DFK_TESTNET keeps its real depth (2)
  process.env.TRANSFER_STUCK_AFTER_SECONDS = '1';
  if (proxy) process.env.TRANSFER_CANCEL_AFTER_FAILURES = '3';
  resetEnvCache();
  const chain = createPublicClient({ transport: http(node.url) });
  const funder = privateKeyToAccount(generatePrivateKey());
  const admin = postgres(process.env.DATABASE_URL!, { max: 2, onnotice: () => {}, connection: { application_name: 'faults-admin' } });
  world = { node, chain, funder, admin, proxy, depth: requiredConfirmations(CHAIN) } as World;
  expect(world.depth).toBeGreaterThan(1);
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address });
  await fundLocalWallet({ chain: CHAIN, url: node.url, address: funder.address });
  await jobsOnce(); // the scanners start here: everything after is on the record
  const { merchant, ownerId, merchantWallet } = await merchantWithOwner('evm', () => newConsumer('0'));
  Object.assign(world, { merchant, ownerId, merchantWallet: merchantWallet as Address });
  await sendFrom(funder, world.merchantWallet, parseEther('500'));
  await settle();
  return world;
}

export async function stopWorld(file: string): Promise<void> {
  writeTable(file);
  await world?.admin.end({ timeout: 5 });
  await world?.proxy?.close();
  await world?.node.stop();
}

export const sendFrom = (account: PrivateKeyAccount, to: Address, value: bigint): Promise<Hex> =>
  sendNativeOn({ url: w().node.url, client: w().chain }, account, to, value);

/** A signed-up user with a PIN, whose service wallet received `jewel` from outside (the indexer records it). */
export async function newConsumer(jewel: string): Promise<{ userId: string; address: Address }> {
  const { userId, address } = await newUserWithPin('evm');
  if (jewel !== '0') await sendFrom(w().funder, address as Address, parseEther(jewel));
  return { userId, address: address as Address };
}

export async function newCharge(amount: string): Promise<{ chargeId: string; deposit: Address }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: w().merchant.testKey,
    body: { chargeData: { symbol: 'JEWEL', chain: 'DFK', tokenAddress: JEWEL.address, amount }, isTest: true },
  });
  return { chargeId, deposit: deposit.address as Address };
}

/** Pays a charge's deposit from a fresh outside wallet (its refunds go back there); not settled. */
export async function payFromOutside(deposit: Address, amount: string): Promise<Address> {
  const payer = privateKeyToAccount(generatePrivateKey());
  await setNativeBalance(payer.address, parseEther('100'));
  await sendFrom(payer, deposit, parseEther(amount));
  return payer.address;
}

/** A charge paid from a fresh outside wallet, settled. */
export async function paidCharge(amount: string): Promise<{ chargeId: string; deposit: Address; payer: Address }> {
  const charge = await newCharge(amount);
  const payer = await payFromOutside(charge.deposit, amount);
  await settle();
  return { ...charge, payer };
}

export const refundCtx = () => ({ merchantId: w().merchant.id, mode: 'test' as const, actor: 'api_key:faults' });

export const withdrawal = (toAddress: Address, amount: string, withdrawalId = newWithdrawalId()) =>
  withdrawalForm({
    userId: w().ownerId,
    merchantId: w().merchant.id,
    mode: 'test',
    chain: CHAIN,
    tokenAddress: JEWEL.address,
    amount,
    toAddress,
    withdrawalId,
  });

/** What the background jobs do, once: the engine's reconciler, the charge watcher, the wallet indexer. */
export const jobsOnce = () => evmJobsOnce(CHAIN);

/** Heals nothing: mines and runs the jobs until no transfer is open and the newest block is at depth. */
export const settle = () => settleChain({ chain: CHAIN, depth: w().depth, anvil, jobs: jobsOnce });

/** The audit of a scenario on this world's chain since `started` (harness.ts auditEvmScenario). */
export const auditWorld = (started: Date, arrivals: Arrival[], expectedCharges: { chargeId: string; status: string }[]) =>
  auditEvmScenario({
    chain: CHAIN,
    client: w().chain,
    started,
    arrivals,
    balanceOf: (address) => w().chain.getBalance({ address }),
    charges: expectedCharges,
  });

// ---------------------------------------------------------------------------------------------------------
// Scenarios and their audit
// ---------------------------------------------------------------------------------------------------------

interface Outcome extends OutcomeRow {
  faultClass: string;
  halfWritten: number;
}
const table: Outcome[] = [];

export class Scenario {
  readonly started = new Date();
  private readonly fired: Record<string, number> = {};
  private readonly arrivals: Arrival[] = [];
  private readonly chargeExpectations: { chargeId: string; status: string }[] = [];
  private readonly invariants: { label: string; holds: () => Promise<string | null> }[] = [];

  constructor(
    readonly name: string,
    readonly faultClass: string,
  ) {}

  note(fault: string, times = 1): void {
    this.fired[fault] = (this.fired[fault] ?? 0) + times;
  }

  /** `address` must end up exactly `amount` richer than it is now (never twice, never short). */
  async expectArrival(label: string, address: Address, amount: bigint, baseline?: bigint): Promise<void> {
    this.arrivals.push({ label, address, amount, baseline: baseline ?? (await w().chain.getBalance({ address })) });
  }

  expectCharge(chargeId: string, status: string): void {
    this.chargeExpectations.push({ chargeId, status });
  }

  /** A row-level check of "nothing half-written" (null when it holds, else what is wrong). */
  expectRows(label: string, holds: () => Promise<string | null>): void {
    this.invariants.push({ label, holds });
  }

  async audit(): Promise<void> {
    await settle();
    const audit = await auditWorld(this.started, this.arrivals, this.chargeExpectations);
    const problems = audit.problems;
    let halfWritten = 0;
    for (const invariant of this.invariants) {
      const wrong = await invariant.holds();
      if (wrong) {
        halfWritten++;
        problems.push(`${invariant.label}: ${wrong}`);
      }
    }
    table.push({ scenario: this.name, faultClass: this.faultClass, faults: firedText(this.fired), ...audit.counts, halfWritten });
    expect(Object.keys(this.fired), 'the scenario’s fault never fired').not.toEqual([]);
    expect(problems, problems.join('\n')).toEqual([]);
  }
}

export function scenario(faultClass: string, name: string, body: (s: Scenario) => Promise<void>): void {
  scenarioTest(name, () => new Scenario(name, faultClass), body);
}

function writeTable(file: string): void {
  writeOutcomeTable(file, table, {
    title: file,
    columns: outcomeColumns({ byClass: true, faultsHeading: 'Faults fired', extra: [['Half-written', true, (o) => o.halfWritten]] }),
    summary: byFaultClass,
  });
}
