/**
 * The world of the database and crash fault files (db-faults.test.ts, crash-outside-engine.test.ts): a
 * private database, a private DFK testnet node (confirmation depth 2) reached directly (these files fault
 * PostgreSQL and processes, not the RPC), a verified merchant whose owner can withdraw, consumers with a
 * PIN, charges paid from outside, and the same audit as faults.test.ts: fresh recipients received exactly
 * what they were owed, charges' statuses and counted payments agree with the chain, every transfer of the
 * scenario ended confirmed, and the ledger reconciles (lib/ledger). The table of outcomes is printed and
 * written to .data/test-results/<file>.md.
 */
import postgres from 'postgres';
import { createPublicClient, http, parseEther, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { expect, it } from 'vitest';
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
  auditArrivals,
  auditCharges,
  auditLedger,
  auditTransfers,
  byFaultClass,
  evmJobsOnce,
  firedText,
  merchantWithOwner,
  newUserWithPin,
  sendNativeOn,
  settleChain,
  withdrawalForm,
  writeOutcomeTable,
  type Arrival,
} from './harness';

export const CHAIN = 'DFK_TESTNET' as const;
export const JEWEL = CHAINS[CHAIN].tokens[0]!;
const SCENARIO_TIMEOUT = 180_000;

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
}

let world: World | undefined;
export const w = (): World => world!;

const anvil = anvilOf(() => w().chain);
export const { mine } = anvil;

/** beforeAll: the private database and node, the merchant with its funded wallet. */
export async function startWorld(prefix: string): Promise<World> {
  await switchToPrivateDatabase(prefix);
  const node = await startLocalChain({ chain: CHAIN });
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  process.env.RPC_URL_DFK_TESTNET = node.url;
  process.env.LOCAL_CHAINS = 'POLYGON,POLYGON_AMOY'; // DFK_TESTNET keeps its real depth (2)
  process.env.TRANSFER_STUCK_AFTER_SECONDS = '1';
  resetEnvCache();
  const chain = createPublicClient({ transport: http(node.url) });
  const funder = privateKeyToAccount(generatePrivateKey());
  const admin = postgres(process.env.DATABASE_URL!, { max: 2, onnotice: () => {}, connection: { application_name: 'faults-admin' } });
  world = { node, chain, funder, admin, depth: requiredConfirmations(CHAIN) } as World;
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
  await anvil.setNativeBalance(payer.address, parseEther('100'));
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

/** Mines and runs the jobs until no transfer is open and the newest block is at depth. */
const settle = () => settleChain({ chain: CHAIN, depth: w().depth, anvil, jobs: jobsOnce });

// ---------------------------------------------------------------------------------------------------------
// Scenarios and their audit
// ---------------------------------------------------------------------------------------------------------

interface Outcome {
  scenario: string;
  faultClass: string;
  faults: string;
  transfers: number;
  sentTwice: number;
  shortOrMissing: number;
  statusMismatches: number;
  halfWritten: number;
  unaccounted: number;
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
    const arrivals = await auditArrivals(this.arrivals, (address) => w().chain.getBalance({ address }));
    const charged = await auditCharges(this.chargeExpectations, w().chain);
    const ended = await auditTransfers(CHAIN, this.started);
    const problems = [...arrivals.problems, ...charged.problems, ...ended.problems];
    let halfWritten = 0;
    for (const invariant of this.invariants) {
      const wrong = await invariant.holds();
      if (wrong) {
        halfWritten++;
        problems.push(`${invariant.label}: ${wrong}`);
      }
    }
    const ledger = await auditLedger(CHAIN);
    problems.push(...ledger.problems);
    table.push({
      scenario: this.name,
      faultClass: this.faultClass,
      faults: firedText(this.fired),
      transfers: ended.transfers.length,
      sentTwice: arrivals.sentTwice + charged.sentTwice,
      shortOrMissing: arrivals.shortOrMissing,
      statusMismatches: charged.statusMismatches + ended.statusMismatches,
      halfWritten,
      unaccounted: ledger.unaccounted,
    });
    expect(Object.keys(this.fired), 'the scenario’s fault never fired').not.toEqual([]);
    expect(problems, problems.join('\n')).toEqual([]);
  }
}

export function scenario(faultClass: string, name: string, body: (s: Scenario) => Promise<void>): void {
  it(
    name,
    async () => {
      const s = new Scenario(name, faultClass);
      await body(s);
      await s.audit();
    },
    SCENARIO_TIMEOUT,
  );
}

function writeTable(file: string): void {
  writeOutcomeTable(file, table, {
    title: file,
    columns: [
      ['Fault class', false, (o) => o.faultClass],
      ['Scenario', false, (o) => o.scenario],
      ['Faults fired', false, (o) => o.faults],
      ['Transfers', true, (o) => o.transfers],
      ['Sent twice', true, (o) => o.sentTwice],
      ['Short or missing', true, (o) => o.shortOrMissing],
      ['Status ≠ chain', true, (o) => o.statusMismatches],
      ['Half-written', true, (o) => o.halfWritten],
      ['Unaccounted', true, (o) => o.unaccounted],
    ],
    summary: byFaultClass,
  });
}
