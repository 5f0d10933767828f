/**
 * The fault suite's one harness: what every fault file and its world (money-world.ts for native coin: faults,
 * db-faults, crash-outside-engine; token-world.ts for a token: token-faults, tank-competing-faults,
 * relayer-faults; the Solana world inside solana-faults.test.ts) drives and audits the same way:
 *  - time and retries: `pause`, `retried` (a user clicking again with the same ids), a scenario as a test;
 *  - the service's people: a signed-up user with a PIN, a verified merchant with an owner who can withdraw;
 *  - an anvil node driven directly (`anvilOf`), the background jobs once, and `settleChain` (mine and run the
 *    jobs until no transfer is open and the newest block is at depth);
 *  - an EVM scenario's audit (`auditEvmScenario`: fresh recipients, charges against the chain, transfers ended,
 *    the ledger), which each world extends (half-written rows, the gas tank, claim links);
 *  - the table of outcomes, printed and written to .data/test-results/<file>.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { and, eq, gt, inArray, sql } from 'drizzle-orm';
import { createWalletClient, http, type Address, type Hex, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { it } from 'vitest';
import { createUser } from '@/lib/accounts/create-user';
import { setPin } from '@/lib/accounts/set-pin';
import type { ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { charges, merchantMembers, outboundTransferAttempts, outboundTransfers, payments } from '@/lib/db/schema';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { reconcileChain } from '@/lib/ledger/reconcile-chains';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { pollChain } from '@/lib/payments/poll-chain';
import { createRefund, newRefundRequestId, type RefundContext } from '@/lib/refunds/create-refund';
import { listWallets } from '@/lib/wallets/list-wallets';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';
import { enrolTotp, uniqueEmail } from '@/test/accounts';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import type { FaultPlan } from './rpc-fault-proxy';

export const PIN = '640213';
export const SCENARIO_TIMEOUT = 180_000;

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh EVM address nobody holds the key of (a recipient whose balance starts at 0). */
export const stranger = () => privateKeyToAccount(generatePrivateKey()).address;

/** Retries a user action with the same ids, as a user clicking again (or a client retrying) would. */
export async function retried<T>(action: () => Promise<T>, attempts = 60): Promise<T> {
  let lastError: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      return await action();
    } catch (error) {
      lastError = error;
      await pause(100);
    }
  }
  throw lastError;
}

/**
 * `retried`'s attempts for an EVM spend (a balance payment, a withdrawal, a refund, a claim) while 25 % of RPC calls
 * answer an error (-32000, which viem does not retry). An attempt gets through only if every read before its
 * transfer is recorded answers: the head, the sender's and the tank's balances and nonces, the fee's block, a USDC
 * balanceOf, a refund's getCode (the gas estimate and the priority fee fall back; a send that errs after the record
 * is the reconciler's), 6 to 8 calls in a row, then the fee: 0.75^8 × 0.94 ≈ 9 % for a USDC refund, 12.5 % for a
 * USDC spend or a JEWEL refund, 17 % for a JEWEL spend (counted by a probe in the proxy; runs took 1–15 attempts).
 * 60 attempts ran out in about 1 run in 370 of a USDC refund (0.906^60), 1 in 3,000 of a USDC spend or a JEWEL
 * refund, 1 in 55,000 of a JEWEL spend; 250: below 1 in 10^10 each (a failed attempt takes about 0.15 s).
 */
export const ATTEMPTS_UNDER_RPC_ERRORS = 250;

/**
 * One scenario as a test: `make` its Scenario, run `body` (which injects the faults and states what must hold),
 * `heal` the world even when the body threw, then the Scenario's audit.
 */
export function scenarioTest<S extends { audit(): Promise<unknown> }>(
  name: string,
  make: () => S | Promise<S>,
  body: (s: S) => Promise<void>,
  options: { heal?: (s: S) => Promise<void>; timeout?: number } = {},
): void {
  it(
    name,
    async () => {
      const s = await make();
      try {
        await body(s);
      } finally {
        await options.heal?.(s);
      }
      await s.audit();
    },
    options.timeout ?? SCENARIO_TIMEOUT,
  );
}

// ---------------------------------------------------------------------------------------------------------
// The service's people
// ---------------------------------------------------------------------------------------------------------

type WalletFamily = 'evm' | 'solana';

/** A signed-up user with a PIN and the address of their service wallet of `family` (unfunded). */
export async function newUserWithPin(family: WalletFamily, emailPrefix = 'faults'): Promise<{ userId: string; address: string }> {
  const email = uniqueEmail(emailPrefix);
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: PIN, confirm: PIN });
  const address = (await listWallets(user.id)).find((x) => x.family === family)!.address;
  return { userId: user.id, address };
}

/** A verified merchant whose owner (`newOwner`) can withdraw, and the merchant's wallet of `family` (unfunded). */
export async function merchantWithOwner(
  family: WalletFamily,
  newOwner: () => Promise<{ userId: string }>,
): Promise<{ merchant: TestMerchant; ownerId: string; merchantWallet: string }> {
  const merchant = await newMerchant({ verified: true });
  const ownerId = (await newOwner()).userId;
  await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: ownerId, role: 'owner' });
  await enrolTotp(ownerId); // owners of a verified merchant withdraw only with a second factor enrolled
  const merchantWallet = (await ensureMerchantWallets(getDb(), merchant.id)).find((x) => x.family === family)!.address;
  return { merchant, ownerId, merchantWallet };
}

/** A merchant withdrawal's form (`withdrawalId` left out when not given: the service makes one). */
export const withdrawalForm = (form: {
  userId: string;
  merchantId: string;
  mode: 'test' | 'live';
  chain: ChainName;
  tokenAddress: string;
  amount: string;
  toAddress: string;
  withdrawalId?: string;
}) => ({ ...form, pin: PIN });

/**
 * A merchant withdrawal of 1 to a stranger and the full refund of `paid` (2) to its payer, asked for (each retried by
 * the user) while the node's sends answer `transportFaults`: each must land once and the charge stay succeeded.
 * `world` gives its merchant's withdrawal form and refund context, and the units of what it moves.
 */
export async function withdrawAndRefundWhileSendsFail(
  s: {
    expectArrival(label: string, address: Address, amount: bigint): Promise<void>;
    expectCharge(chargeId: string, status: string): void;
    inject(plan: FaultPlan): void;
  },
  world: {
    units: (amount: string) => bigint;
    withdrawal: (toAddress: Address, amount: string) => Parameters<typeof withdrawFromMerchantWallet>[0];
    refundCtx: () => RefundContext;
  },
  paid: { chargeId: string; payer: Address },
  transportFaults: Omit<NonNullable<FaultPlan['transportFaults']>, 'methods'>,
): Promise<void> {
  const destination = stranger();
  const refundKey = newRefundRequestId();
  await s.expectArrival('withdrawal', destination, world.units('1'));
  await s.expectArrival('refund', paid.payer, world.units('2'));
  s.expectCharge(paid.chargeId, 'succeeded');
  // N10: TRANSFER_CANCEL_AFTER_FAILURES is 3 here; none of these is a node's refusal, so none counts.
  s.inject({ transportFaults: { ...transportFaults, methods: ['eth_sendRawTransaction'] } });
  await retried(() => withdrawFromMerchantWallet(world.withdrawal(destination, '1')));
  await retried(() => createRefund({ ctx: world.refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: refundKey }));
}

/** Transfers made since `since` that some attempt canceled (a 0-value self-transfer at its nonce). */
export const canceledSince = (since: Date) =>
  getDb()
    .select({ transferId: outboundTransferAttempts.transferId })
    .from(outboundTransferAttempts)
    .innerJoin(outboundTransfers, eq(outboundTransfers.id, outboundTransferAttempts.transferId))
    .where(and(gt(outboundTransfers.createdAt, since), eq(outboundTransferAttempts.kind, 'cancel')));

// ---------------------------------------------------------------------------------------------------------
// An anvil node, driven directly, and the background jobs
// ---------------------------------------------------------------------------------------------------------

/** The node-control calls of an anvil reached at `client()` (read when called: worlds start after import). */
export function anvilOf(client: () => PublicClient) {
  const rpc = (method: string, params: unknown[] = []) => client().request({ method: method as never, params: params as never });
  return {
    rpc,
    mine: (blocks = 1) => rpc('anvil_mine', [`0x${blocks.toString(16)}`]),
    automine: (on: boolean) => rpc('evm_setAutomine', [on]),
    setNativeBalance: (address: Address, value: bigint) => rpc('anvil_setBalance', [address, `0x${value.toString(16)}`]),
  };
}

/** Native coin sent on the record (a transaction the wallet indexer sees), waited for. */
export async function sendNativeOn(
  node: { url: string; client: PublicClient },
  account: PrivateKeyAccount,
  to: Address,
  value: bigint,
): Promise<Hex> {
  const wallet = createWalletClient({ account, transport: http(node.url) });
  const hash = await wallet.sendTransaction({ to, value, chain: null });
  await node.client.waitForTransactionReceipt({ hash });
  return hash;
}

/** What the background jobs of an EVM chain do, once: the engine's reconciler, the charge watcher, the wallet indexer. */
export async function evmJobsOnce(chain: ChainName): Promise<void> {
  await reconcileDueTransfers({ ignoreSchedule: true }).catch(() => 0);
  await pollChain(chain).catch(() => null);
  await pollIncomingTransfers(chain).catch(() => null);
}

/** How many of `chain`'s transfers are still open (signed, broadcast or included). */
export async function openTransfers(chain: ChainName): Promise<number> {
  const [row] = await getDb()
    .select({ n: sql<number>`count(*)::int` })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chain, chain), inArray(outboundTransfers.status, ['signed', 'broadcast', 'included'])));
  return row!.n;
}

/**
 * Heals nothing: mines (`step` blocks a round) and runs `jobs` until no transfer of `chain` is open and the
 * newest block is at `depth`, then mines `depth` more and runs the jobs twice.
 */
export async function settleChain(options: {
  chain: ChainName;
  depth: number;
  anvil: ReturnType<typeof anvilOf>;
  jobs: () => Promise<void>;
  maxRounds?: number;
  step?: number;
}): Promise<void> {
  const { chain, depth, anvil, jobs, maxRounds = 40, step = 1 } = options;
  await anvil.automine(true);
  for (let round = 0; round < maxRounds; round++) {
    await anvil.mine(step);
    await jobs();
    if (round * step >= depth && (await openTransfers(chain)) === 0) break;
    if (round > 4) await pause(300); // a stuck or refused send waits TRANSFER_STUCK_AFTER_SECONDS
  }
  await anvil.mine(depth);
  await jobs();
  await jobs();
}

// ---------------------------------------------------------------------------------------------------------
// The audit's common checks (each returns its counts and the problems it found)
// ---------------------------------------------------------------------------------------------------------

export interface Arrival {
  label: string;
  address: Address;
  amount: bigint;
  baseline: bigint;
}

/** Each fresh recipient got exactly its amount (more is a double send, less is short or missing). */
async function auditArrivals(arrivals: Arrival[], balanceOf: (address: Address) => Promise<bigint>) {
  const problems: string[] = [];
  let sentTwice = 0;
  let shortOrMissing = 0;
  for (const arrival of arrivals) {
    const received = (await balanceOf(arrival.address)) - arrival.baseline;
    if (received === arrival.amount) continue;
    if (received > arrival.amount) sentTwice++;
    else shortOrMissing++;
    problems.push(`${arrival.label}: received ${received}, expected ${arrival.amount}`);
  }
  return { sentTwice, shortOrMissing, problems };
}

/**
 * Each expected charge has its status, and every payment the service counts is a successful transaction in the
 * canonical chain, at the block recorded (a balance payment has no transaction); a succeeded charge counts its total.
 */
async function auditCharges(expectations: { chargeId: string; status: string }[], client: PublicClient) {
  const problems: string[] = [];
  let statusMismatches = 0;
  let sentTwice = 0;
  for (const expected of expectations) {
    const [charge] = await getDb().select().from(charges).where(eq(charges.id, expected.chargeId));
    if (charge!.status !== expected.status) {
      statusMismatches++;
      problems.push(`charge ${expected.chargeId} is ${charge!.status}, expected ${expected.status}`);
    }
    const rows = await getDb().select().from(payments).where(eq(payments.chargeId, expected.chargeId));
    let confirmedTotal = 0n;
    for (const payment of rows.filter((p) => p.status === 'confirmed')) {
      confirmedTotal += payment.amountBaseUnits;
      if (payment.txHash.startsWith('balance:')) continue;
      const receipt = await client.getTransactionReceipt({ hash: payment.txHash as Hex }).catch(() => null);
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
  return { statusMismatches, sentTwice, problems };
}

type TransferRow = typeof outboundTransfers.$inferSelect;

/**
 * The transfers of `chain` made since `since`: each ended `confirmed`, or `failed` where the scenario expects it
 * (`expectedFailures`); `detail` adds what whoever reads a failure needs.
 */
async function auditTransfers(
  chain: ChainName,
  since: Date,
  options: { expectedFailures?: Set<string>; detail?: (transfer: TransferRow) => Promise<string> } = {},
) {
  const problems: string[] = [];
  let statusMismatches = 0;
  const transfers = await getDb()
    .select()
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chain, chain), gt(outboundTransfers.createdAt, since)));
  for (const transfer of transfers) {
    const want = options.expectedFailures?.has(transfer.id) ? 'failed' : 'confirmed';
    if (transfer.status === want) continue;
    statusMismatches++;
    const detail = options.detail ? ` ${await options.detail(transfer)}` : '';
    problems.push(
      `${transfer.purpose} transfer ${transfer.id} ended ${transfer.status} (expected ${want}): ${transfer.error ?? ''}${detail}`,
    );
  }
  return { transfers, statusMismatches, problems };
}

/** The ledger's reconciliation of `chain` (lib/ledger): each discrepancy, or its error, is unaccounted. */
async function auditLedger(chain: ChainName) {
  const ledger = await reconcileChain(chain);
  const problems: string[] = [];
  if (ledger.error) problems.push(`reconciliation: ${ledger.error}`);
  for (const d of ledger.discrepancies)
    problems.push(`ledger: ${d.holder} ${d.address} holds ${d.actual} ${d.symbol}, expected ${d.expected}`);
  return { unaccounted: ledger.discrepancies.length + (ledger.error ? 1 : 0), problems };
}

/**
 * The audit of an EVM scenario: fresh recipients (by `balanceOf`), expected charges against the chain, the
 * transfers of `chain` since `started` ended, the ledger; the counts of its row and the problems found.
 */
export async function auditEvmScenario(input: {
  chain: ChainName;
  client: PublicClient;
  started: Date;
  arrivals: Arrival[];
  balanceOf: (address: Address) => Promise<bigint>;
  charges: { chargeId: string; status: string }[];
  expectedFailures?: Set<string>;
  detail?: (transfer: TransferRow) => Promise<string>;
}) {
  const arrivals = await auditArrivals(input.arrivals, input.balanceOf);
  const charged = await auditCharges(input.charges, input.client);
  const ended = await auditTransfers(input.chain, input.started, input);
  const ledger = await auditLedger(input.chain);
  return {
    problems: [...arrivals.problems, ...charged.problems, ...ended.problems, ...ledger.problems],
    transfers: ended.transfers,
    counts: {
      transfers: ended.transfers.length,
      sentTwice: arrivals.sentTwice + charged.sentTwice,
      shortOrMissing: arrivals.shortOrMissing,
      statusMismatches: charged.statusMismatches + ended.statusMismatches,
      unaccounted: ledger.unaccounted,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// The table of outcomes
// ---------------------------------------------------------------------------------------------------------

/** The faults a scenario fired, for its row: `lost_send ×2, reorg ×1`, or `—`. */
export const firedText = (fired: Record<string, number>) =>
  Object.entries(fired)
    .map(([fault, count]) => `${fault} ×${count}`)
    .join(', ') || '—';

export interface OutcomeRow {
  scenario: string;
  faultClass?: string;
  faults: string;
  transfers: number;
  sentTwice: number;
  shortOrMissing: number;
  statusMismatches: number;
  unaccounted: number;
}

type Column<Row> = [heading: string, numeric: boolean, cell: (row: Row) => string | number];

/**
 * The columns every file's table has: the fault class (`byClass`), the scenario, its faults (`faultsHeading`),
 * its transfers and what went wrong, the file's own counts (`extra`) before the unaccounted balances.
 */
export function outcomeColumns<Row extends OutcomeRow>(options: {
  byClass: boolean;
  faultsHeading: string;
  extra?: Column<Row>[];
}): Column<Row>[] {
  return [
    ...(options.byClass ? [['Fault class', false, (o: Row) => o.faultClass!] as Column<Row>] : []),
    ['Scenario', false, (o) => o.scenario],
    [options.faultsHeading, false, (o) => o.faults],
    ['Transfers', true, (o) => o.transfers],
    ['Sent twice', true, (o) => o.sentTwice],
    ['Short or missing', true, (o) => o.shortOrMissing],
    ['Status ≠ chain', true, (o) => o.statusMismatches],
    ...(options.extra ?? []),
    ['Unaccounted', true, (o) => o.unaccounted],
  ];
}

/**
 * Prints the file's outcomes and writes them to .data/test-results/<file>.md: one row a scenario (`columns`:
 * heading, right-aligned, cell), then `summary` if any (by fault class, or the file's totals), under `title`.
 */
export function writeOutcomeTable<Row extends OutcomeRow>(
  file: string,
  rows: Row[],
  options: {
    title: string;
    columns: Column<Row>[];
    summary: (rows: Row[]) => string[];
  },
): void {
  if (!rows.length) return;
  const lines = [
    `| ${options.columns.map(([heading]) => heading).join(' | ')} |`,
    `| ${options.columns.map(([, numeric]) => (numeric ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((row) => `| ${options.columns.map(([, , cell]) => cell(row)).join(' | ')} |`),
  ];
  const summary = options.summary(rows);
  if (summary.length) lines.push('', ...summary);
  const text = lines.join('\n');
  console.log(`\n${options.title}\n\n${text}\n`);
  mkdirSync('.data/test-results', { recursive: true });
  writeFileSync(`.data/test-results/${file}.md`, `${text}\n`);
}

/** The summary by fault class: how many scenarios, double sends and unaccounted balances each had. */
export function byFaultClass(rows: OutcomeRow[]): string[] {
  const classes = new Map<string, { scenarios: number; twice: number; unaccounted: number }>();
  for (const o of rows) {
    const c = classes.get(o.faultClass!) ?? { scenarios: 0, twice: 0, unaccounted: 0 };
    classes.set(o.faultClass!, { scenarios: c.scenarios + 1, twice: c.twice + o.sentTwice, unaccounted: c.unaccounted + o.unaccounted });
  }
  const lines = ['| Fault class | Scenarios | Double sends | Unaccounted |', '| --- | ---: | ---: | ---: |'];
  for (const [name, c] of classes) lines.push(`| ${name} | ${c.scenarios} | ${c.twice} | ${c.unaccounted} |`);
  return lines;
}
