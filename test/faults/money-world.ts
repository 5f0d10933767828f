/**
 * The world of the database and crash fault files (db-faults.test.ts, crash-outside-engine.test.ts): a
 * private database, a private DFK testnet node (confirmation depth 2) reached directly (these files fault
 * PostgreSQL and processes, not the RPC), a verified merchant whose owner can withdraw, consumers with a
 * PIN, charges paid from outside, and the same audit as faults.test.ts: fresh recipients received exactly
 * what they were owed, charges' statuses and counted payments agree with the chain, every transfer of the
 * scenario ended confirmed, and the ledger reconciles (lib/ledger). The table of outcomes is printed and
 * written to .data/test-results/<file>.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { expect, it } from 'vitest';
import { createUser } from '@/lib/accounts/create-user';
import { setPin } from '@/lib/accounts/set-pin';
import { requiredConfirmations } from '@/lib/chains/required-confirmations';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, merchantMembers, outboundTransfers, payments } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { reconcileChain } from '@/lib/ledger/reconcile-chains';
import { newWithdrawalId } from '@/lib/merchants/withdraw';
import { pollChain } from '@/lib/payments/poll-chain';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { listWallets } from '@/lib/wallets/list-wallets';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { enrolTotp, uniqueEmail } from '@/test/accounts';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';

export const CHAIN = 'DFK_TESTNET' as const;
export const JEWEL = CHAINS[CHAIN].tokens[0]!;
export const PIN = '640213';
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

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const stranger = () => privateKeyToAccount(generatePrivateKey()).address;
const rpc = (method: string, params: unknown[] = []) => w().chain.request({ method: method as never, params: params as never });
export const mine = (blocks = 1) => rpc('anvil_mine', [`0x${blocks.toString(16)}`]);

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
  world.merchant = await newMerchant({ verified: true });
  world.ownerId = (await newConsumer('0')).userId;
  await getDb().insert(merchantMembers).values({ merchantId: world.merchant.id, userId: world.ownerId, role: 'owner' });
  await enrolTotp(world.ownerId); // owners of a verified merchant withdraw only with a second factor enrolled
  world.merchantWallet = (await ensureMerchantWallets(getDb(), world.merchant.id)).find((x) => x.family === 'evm')!.address as Address;
  await sendFrom(funder, world.merchantWallet, parseEther('500'));
  await settle();
  return world;
}

export async function stopWorld(file: string): Promise<void> {
  writeTable(file);
  await world?.admin.end({ timeout: 5 });
  await world?.node.stop();
}

export async function sendFrom(account: PrivateKeyAccount, to: Address, value: bigint): Promise<Hex> {
  const wallet = createWalletClient({ account, transport: http(w().node.url) });
  const hash = await wallet.sendTransaction({ to, value, chain: null });
  await w().chain.waitForTransactionReceipt({ hash });
  return hash;
}

/** A signed-up user with a PIN, whose service wallet received `jewel` from outside (the indexer records it). */
export async function newConsumer(jewel: string): Promise<{ userId: string; address: Address }> {
  const email = uniqueEmail('faults');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: PIN, confirm: PIN });
  const address = (await listWallets(user.id)).find((x) => x.family === 'evm')!.address as Address;
  if (jewel !== '0') await sendFrom(w().funder, address, parseEther(jewel));
  return { userId: user.id, address };
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
  await rpc('anvil_setBalance', [payer.address, `0x${parseEther('100').toString(16)}`]);
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

export const withdrawal = (toAddress: Address, amount: string, withdrawalId = newWithdrawalId()) => ({
  userId: w().ownerId,
  merchantId: w().merchant.id,
  mode: 'test' as const,
  chain: CHAIN,
  tokenAddress: JEWEL.address,
  amount,
  toAddress,
  pin: PIN,
  withdrawalId,
});

/** What the background jobs do, once: the engine's reconciler, the charge watcher, the wallet indexer. */
export async function jobsOnce(): Promise<void> {
  await reconcileDueTransfers({ ignoreSchedule: true }).catch(() => 0);
  await pollChain(CHAIN).catch(() => null);
  await pollIncomingTransfers(CHAIN).catch(() => null);
}

async function openTransfers(): Promise<number> {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chain, CHAIN), inArray(outboundTransfers.status, ['signed', 'broadcast', 'included'])));
  return row!.n;
}

/** Mines and runs the jobs until no transfer is open and the newest block is at depth. */
async function settle(maxRounds = 40): Promise<void> {
  for (let round = 0; round < maxRounds; round++) {
    await mine(1);
    await jobsOnce();
    if (round >= w().depth && (await openTransfers()) === 0) break;
    if (round > 4) await pause(300);
  }
  await mine(w().depth);
  await jobsOnce();
  await jobsOnce();
}

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
  private readonly arrivals: { address: Address; baseline: bigint; amount: bigint; label: string }[] = [];
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
    const problems: string[] = [];
    let sentTwice = 0;
    let shortOrMissing = 0;
    for (const arrival of this.arrivals) {
      const received = (await w().chain.getBalance({ address: arrival.address })) - arrival.baseline;
      if (received > arrival.amount) sentTwice++;
      else if (received < arrival.amount) shortOrMissing++;
      if (received !== arrival.amount) problems.push(`${arrival.label}: received ${received}, expected ${arrival.amount}`);
    }
    let statusMismatches = 0;
    for (const expected of this.chargeExpectations) {
      const [charge] = await getDb().select().from(charges).where(eq(charges.id, expected.chargeId));
      if (charge!.status !== expected.status) {
        statusMismatches++;
        problems.push(`charge ${expected.chargeId} is ${charge!.status}, expected ${expected.status}`);
      }
      const rows = await getDb().select().from(payments).where(eq(payments.chargeId, expected.chargeId));
      let confirmedTotal = 0n;
      for (const payment of rows.filter((p) => p.status === 'confirmed')) {
        confirmedTotal += payment.amountBaseUnits;
        const receipt = await w()
          .chain.getTransactionReceipt({ hash: payment.txHash as Hex })
          .catch(() => null);
        if (receipt?.status !== 'success' || receipt.blockHash !== payment.blockHash) {
          statusMismatches++;
          problems.push(`payment ${payment.txHash} of ${expected.chargeId} is not in the canonical chain as recorded`);
        }
      }
      if (expected.status === 'succeeded' && confirmedTotal !== charge!.totalBaseUnits) {
        sentTwice += confirmedTotal > charge!.totalBaseUnits ? 1 : 0;
        statusMismatches++;
        problems.push(`charge ${expected.chargeId} counts ${confirmedTotal} paid, its total is ${charge!.totalBaseUnits}`);
      }
    }
    const transfers = await getDb()
      .select({
        id: outboundTransfers.id,
        status: outboundTransfers.status,
        purpose: outboundTransfers.purpose,
        error: outboundTransfers.error,
      })
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chain, CHAIN), gt(outboundTransfers.createdAt, this.started)));
    for (const transfer of transfers.filter((t) => t.status !== 'confirmed')) {
      statusMismatches++;
      problems.push(`${transfer.purpose} transfer ${transfer.id} ended ${transfer.status}: ${transfer.error ?? ''}`);
    }
    let halfWritten = 0;
    for (const invariant of this.invariants) {
      const wrong = await invariant.holds();
      if (wrong) {
        halfWritten++;
        problems.push(`${invariant.label}: ${wrong}`);
      }
    }
    const ledger = await reconcileChain(CHAIN);
    if (ledger.error) problems.push(`reconciliation: ${ledger.error}`);
    for (const d of ledger.discrepancies) problems.push(`ledger: ${d.holder} ${d.address} holds ${d.actual}, expected ${d.expected}`);
    table.push({
      scenario: this.name,
      faultClass: this.faultClass,
      faults:
        Object.entries(this.fired)
          .map(([fault, count]) => `${fault} ×${count}`)
          .join(', ') || '—',
      transfers: transfers.length,
      sentTwice,
      shortOrMissing,
      statusMismatches,
      halfWritten,
      unaccounted: ledger.discrepancies.length + (ledger.error ? 1 : 0),
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
  if (!table.length) return;
  const lines = [
    '| Fault class | Scenario | Faults fired | Transfers | Sent twice | Short or missing | Status ≠ chain | Half-written | Unaccounted |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...table.map(
      (o) =>
        `| ${o.faultClass} | ${o.scenario} | ${o.faults} | ${o.transfers} | ${o.sentTwice} | ${o.shortOrMissing} | ${o.statusMismatches} | ${o.halfWritten} | ${o.unaccounted} |`,
    ),
  ];
  const classes = new Map<string, { scenarios: number; twice: number; unaccounted: number }>();
  for (const o of table) {
    const c = classes.get(o.faultClass) ?? { scenarios: 0, twice: 0, unaccounted: 0 };
    classes.set(o.faultClass, { scenarios: c.scenarios + 1, twice: c.twice + o.sentTwice, unaccounted: c.unaccounted + o.unaccounted });
  }
  lines.push('', '| Fault class | Scenarios | Double sends | Unaccounted |', '| --- | ---: | ---: | ---: |');
  for (const [name, c] of classes) lines.push(`| ${name} | ${c.scenarios} | ${c.twice} | ${c.unaccounted} |`);
  const text = lines.join('\n');
  console.log(`\n${file}\n\n${text}\n`);
  mkdirSync('.data/test-results', { recursive: true });
  writeFileSync(`.data/test-results/${file}.md`, `${text}\n`);
}
