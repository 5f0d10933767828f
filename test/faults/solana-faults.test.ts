/**
 * The fault-injection suite, Solana part (issue 29.4): the Solana money paths — a sweep of a paid deposit, merchant
 * withdrawals in SOL and USDC, a refund to the payer, pay-from-balance, a wallet send — on a real local cluster
 * (scripts/stack/solana-cluster.ts, LiteSVM behind JSON-RPC, served in this process over HTTP with 40 ms slots so a blockhash expires
 * in 6 s) reached only through the Solana fault proxy (./solana-fault-proxy.ts), and worker processes killed by
 * SIGKILL at the Solana engine's crash points. Each scenario asserts its faults fired, then the audit:
 *  - each recorded transfer landed at most once, and exactly when its record says so (by the cluster's own list of
 *    executed transactions): a `confirmed` row's signature landed and succeeded, a `failed` row's never succeeded;
 *    no two confirmed rows do one job (purpose, charge, idempotency key); fresh recipients got exactly their amount;
 *  - the on-chain balances match the records (0 unaccounted): every wallet the scenario touched moved, in SOL and in
 *    USDC, by exactly its recorded confirmed transfers in and out plus what the test itself sent it, and the gas
 *    tank by exactly its fee records; the ledger's own reconciliation (lib/ledger/reconcile-solana.ts) agrees;
 *  - no wallet paid a fee: every landed transaction of a record has the gas tank as its fee payer.
 */
import { and, eq, gt } from 'drizzle-orm';
import {
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from '@solana/kit';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getMintToInstruction,
} from '@solana-program/token';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { CHAINS, SOLANA_NATIVE_MINT } from '@/lib/chains/registry';
import type { CrashPoint } from '@/lib/crash-points';
import { getDb } from '@/lib/db/client';
import { charges, outboundTransferAttempts, outboundTransfers, webhookEvents } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { localSolanaMinterAccount } from '@/lib/keyring/local-solana-accounts';
import { reconcileChains } from '@/lib/ledger/reconcile-chains';
import { newWithdrawalId, withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { pollSolana } from '@/lib/payments/solana/poll-solana';
import { sweepCharge } from '@/lib/payments/sweep-charges';
import { createRefund, newRefundRequestId } from '@/lib/refunds/create-refund';
import { gasTankSolanaKeyFromSeed } from '@/lib/transactions/gas-tank-key';
import { MAX_SOLANA_RESIGNS } from '@/lib/transactions/solana/resign-solana-transfer';
import { NOT_SENT_ERROR } from '@/lib/transactions/solana/solana-transfers';
import { newSendId } from '@/lib/wallets/preview-send';
import { sendFromWallet } from '@/lib/wallets/send-from-wallet';
import { serveSolanaCluster, type ServedSolanaCluster } from '@/scripts/stack/solana-cluster';
import { createTestCharge, type TestMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { TEST_SECRETS } from '@/test/test-secrets';
import {
  PIN,
  byFaultClass,
  firedText,
  merchantWithOwner,
  newUserWithPin,
  openTransfers,
  pause,
  retried as retriedUpTo,
  scenarioTest,
  withdrawalForm,
  outcomeColumns,
  writeOutcomeTable,
  type OutcomeRow,
} from './harness';
import { runJob, type Job } from './jobs';
import { startSolanaFaultProxy, type SolanaFaultPlan, type SolanaFaultProxy } from './solana-fault-proxy';

const CHAIN = 'SOLANA' as const;
const USDC = CHAINS.SOLANA.tokens.find((t) => t.symbol === 'USDC')!;
/** 150 slots of 40 ms: a blockhash is valid for 6 s. */
const SLOT_MS = 40;
const SCENARIO_TIMEOUT = 120_000;
const sol = (n: string) => BigInt(Math.round(Number(n) * 1e9));
const usdc = (n: string) => BigInt(Math.round(Number(n) * 1e6));

let served: ServedSolanaCluster;
let proxy: SolanaFaultProxy;
/** The suite's own view of the cluster (the app goes through the proxy). */
let rpc: Rpc<SolanaRpcApi>;
let merchant: TestMerchant;
let ownerId: string;
let merchantWallet: Address;
const tank = address(gasTankSolanaKeyFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address);

beforeAll(async () => {
  await switchToPrivateDatabase('faults_solana');
  served = await serveSolanaCluster({ chain: CHAIN, slotMs: SLOT_MS });
  proxy = await startSolanaFaultProxy(served.url);
  rpc = createSolanaRpc(served.url);
  process.env.RPC_URL_SOLANA = proxy.url;
  resetEnvCache();
  await airdrop(tank, sol('100'));
  const owned = await merchantWithOwner('solana', newConsumer);
  merchant = owned.merchant;
  ownerId = owned.ownerId;
  merchantWallet = address(owned.merchantWallet);
  await airdrop(merchantWallet, sol('20'));
  await mintUsdc(merchantWallet, usdc('500'));
}, SCENARIO_TIMEOUT);

afterAll(async () => {
  writeTable('faults-solana');
  await proxy?.close();
  await served?.stop();
});

// ---------------------------------------------------------------------------------------------------------
// The chain, driven directly (outside the service: the test's own money, declared to the audit)
// ---------------------------------------------------------------------------------------------------------

async function landed(signature: Signature): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    if (value[0]) {
      if (value[0].err) throw new Error(`${signature} failed: ${JSON.stringify(value[0].err)}`);
      return;
    }
    await pause(20);
  }
  throw new Error(`${signature} never landed`);
}

/** A real transfer from the cluster's faucet. */
async function airdrop(to: Address, amount: bigint): Promise<void> {
  await landed(await rpc.requestAirdrop(to, lamports(amount)).send());
}

/** USDC minted to `owner`'s associated token account (the minter pays fee and rent). */
async function mintUsdc(owner: Address, amount: bigint): Promise<void> {
  const minter = await createKeyPairSignerFromBytes(localSolanaMinterAccount.secretKey);
  const mint = address(USDC.address);
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const { value: lifetime } = await rpc.getLatestBlockhash().send();
  const transaction = await pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(minter, message),
    (message) => setTransactionMessageLifetimeUsingBlockhash(lifetime, message),
    async (message) =>
      appendTransactionMessageInstructions(
        [
          await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: minter, owner, mint }),
          getMintToInstruction({ mint, token: ata, mintAuthority: minter, amount }),
        ],
        message,
      ),
    async (message) => signTransactionMessageWithSigners(await message),
  );
  await landed(await rpc.sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: 'base64' }).send());
}

async function lamportsOf(owner: Address): Promise<bigint> {
  return (await rpc.getBalance(owner).send()).value;
}

async function usdcOf(owner: Address): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({ owner, mint: address(USDC.address), tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const { value } = await rpc.getAccountInfo(ata, { encoding: 'jsonParsed' }).send();
  if (!value) return 0n;
  return BigInt((value.data as { parsed: { info: { tokenAmount: { amount: string } } } }).parsed.info.tokenAmount.amount);
}

const stranger = async () => (await generateKeyPairSigner()).address;

// ---------------------------------------------------------------------------------------------------------
// The service's world
// ---------------------------------------------------------------------------------------------------------

async function newConsumer(): Promise<{ userId: string; address: Address }> {
  const user = await newUserWithPin('solana', 'solfaults');
  return { userId: user.userId, address: address(user.address) };
}

async function newCharge(token: 'SOL' | 'USDC', amount: string): Promise<{ chargeId: string; deposit: Address }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey,
    body: { chargeData: { symbol: token, chain: CHAIN, tokenAddress: token === 'SOL' ? SOLANA_NATIVE_MINT : USDC.address, amount } },
  });
  return { chargeId, deposit: address(deposit.address) };
}

const withdrawal = (toAddress: string, token: 'SOL' | 'USDC', amount: string, withdrawalId = newWithdrawalId()) =>
  withdrawalForm({
    userId: ownerId,
    merchantId: merchant.id,
    mode: 'live',
    chain: CHAIN,
    tokenAddress: token === 'SOL' ? SOLANA_NATIVE_MINT : USDC.address,
    amount,
    toAddress,
    withdrawalId,
  });

const refundCtx = () => ({ merchantId: merchant.id, mode: 'live' as const, actor: 'api_key:solana-faults' });

/** A user action retried with the same ids, 40 times at most here. */
const retried = <T>(action: () => Promise<T>) => retriedUpTo(action, 40);

/** The charges whose sweep the running scenario leaves to the sweep job (a failed sweep is signed anew there). */
const sweeping = new Set<string>();

/** The background jobs, once: the engine's reconciler, the Solana watcher, and the scenario's sweeps. */
async function jobsOnce(): Promise<void> {
  await reconcileDueTransfers({ ignoreSchedule: true }).catch(() => 0);
  await pollSolana(CHAIN).catch(() => null);
  for (const chargeId of sweeping) await sweepCharge(chargeId).catch(() => null);
}

/** Runs the background jobs until the transfer's row satisfies `done` (its final value), failing after `ms`. */
async function untilTransfer(
  transferId: string,
  done: (row: typeof outboundTransfers.$inferSelect) => boolean,
  ms = 30_000,
): Promise<typeof outboundTransfers.$inferSelect> {
  const until = Date.now() + ms;
  for (;;) {
    const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
    if (done(row!)) return row!;
    if (Date.now() > until) throw new Error(`transfer ${transferId} stayed ${row!.status} (${row!.txHash})`);
    await jobsOnce();
    await pause(250);
  }
}

const attemptsOf = (transferId: string) =>
  getDb()
    .select()
    .from(outboundTransferAttempts)
    .where(eq(outboundTransferAttempts.transferId, transferId))
    .orderBy(outboundTransferAttempts.createdAt);

/** The landed transactions `owner` signed (as a signer, not a mere account), by the cluster's own list. */
function signedBy(owner: Address) {
  return served.cluster.ledger.sent.filter((t) => {
    const { accountKeys, header } = t.view.transaction.message;
    const at = accountKeys.indexOf(owner);
    return t.isLanded && at !== -1 && at < header.numRequiredSignatures;
  });
}

async function webhooksOf(chargeId: string, type: string): Promise<number> {
  const rows = await getDb().select().from(webhookEvents).where(eq(webhookEvents.chargeId, chargeId));
  return rows.filter((e) => e.type === type).length;
}

async function settle(maxRounds = 60): Promise<void> {
  for (let round = 0; round < maxRounds; round++) {
    await jobsOnce();
    if ((await openTransfers(CHAIN)) === 0) break;
    await pause(100);
  }
  await jobsOnce();
}

/** A consumer whose Solana wallet holds `amount` (SOL, or USDC and no SOL at all). */
async function fundedConsumer(token: 'SOL' | 'USDC', amount: bigint) {
  const consumer = await newConsumer();
  if (token === 'SOL') await airdrop(consumer.address, amount);
  else await mintUsdc(consumer.address, amount);
  return consumer;
}

/** A charge paid from a consumer's balance, settled (its deposit holds the funds until swept). */
async function paidCharge(token: 'SOL' | 'USDC', amount: string) {
  const units = token === 'SOL' ? sol(amount) : usdc(amount);
  const payer = await fundedConsumer(token, token === 'SOL' ? units * 2n : units);
  const charge = await newCharge(token, amount);
  await payFromBalance({ userId: payer.userId, chargeId: charge.chargeId, pin: PIN });
  await settle();
  const [row] = await getDb().select().from(charges).where(eq(charges.id, charge.chargeId));
  expect(row!.status).toBe('succeeded');
  return { ...charge, payer };
}

// ---------------------------------------------------------------------------------------------------------
// Scenarios and their audit
// ---------------------------------------------------------------------------------------------------------

interface Outcome extends OutcomeRow {
  faultClass: string;
  walletFees: number;
}
const table: Outcome[] = [];
type Token = 'SOL' | 'USDC';

class Scenario {
  readonly started = new Date();
  /** The cluster's executed transactions before the scenario: what came after is its own. */
  private readonly sentBefore = served.cluster.ledger.sent.length;
  private readonly fired: Record<string, number> = {};
  private readonly required: string[] = [];
  private readonly tracked = new Map<string, { owner: Address; token: Token; baseline: bigint; outside: bigint; since: Date }>();
  private readonly arrivals: { label: string; owner: Address; token: Token; amount: bigint }[] = [];
  private readonly chargeExpectations: { chargeId: string; status: string }[] = [];
  private readonly expectedFailures = new Set<string>();
  private tankBaseline = 0n;

  constructor(
    readonly name: string,
    readonly faultClass: string,
  ) {}

  async begin(): Promise<void> {
    this.tankBaseline = await lamportsOf(tank);
    await this.track(merchantWallet);
  }

  /** Every balance of `owner` (SOL and USDC) must move by exactly its records from now on. */
  async track(owner: Address): Promise<void> {
    for (const token of ['SOL', 'USDC'] as const) {
      const key = `${owner}:${token}`;
      if (this.tracked.has(key)) continue;
      const since = new Date();
      const baseline = token === 'SOL' ? await lamportsOf(owner) : await usdcOf(owner);
      this.tracked.set(key, { owner, token, baseline, outside: 0n, since });
    }
  }

  /** What the test itself sent `owner` after tracking began (not a record of the service). */
  outside(owner: Address, token: Token, amount: bigint): void {
    this.tracked.get(`${owner}:${token}`)!.outside += amount;
  }

  /** `owner` must end up exactly `amount` richer in `token` (never twice, never short). */
  async expectArrival(label: string, owner: Address, token: Token, amount: bigint): Promise<void> {
    await this.track(owner);
    this.arrivals.push({ label, owner, token, amount });
  }

  expectCharge(chargeId: string, status: string): void {
    this.chargeExpectations.push({ chargeId, status });
  }

  /** A transfer the scenario expects to end `failed` (its blockhash expired unlanded). */
  expectFailed(transferId: string): void {
    this.expectedFailures.add(transferId);
  }

  inject(plan: SolanaFaultPlan): void {
    this.collectFaults();
    proxy.inject(plan);
  }

  heal(): void {
    this.inject({});
  }

  /** These faults must have fired by the end. */
  requireFault(...names: string[]): void {
    this.required.push(...names);
  }

  note(fault: string, times = 1): void {
    this.fired[fault] = (this.fired[fault] ?? 0) + times;
  }

  private collectFaults(): void {
    for (const [fault, count] of Object.entries(proxy.counts())) this.note(fault, count);
  }

  async audit(): Promise<void> {
    this.heal();
    await settle();
    const problems: string[] = [];
    const rows = await getDb()
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chain, CHAIN), gt(outboundTransfers.createdAt, this.started)));
    const mains = rows.filter((r) => !r.txHash.endsWith('-fee'));
    const fees = rows.filter((r) => r.txHash.endsWith('-fee'));
    const executed = served.cluster.ledger.sent.slice(this.sentBefore).filter((t) => t.isLanded);
    const executedBy = new Map(executed.map((t) => [t.signature, t]));

    // Each record against what the cluster executed.
    let statusMismatches = 0;
    let sentTwice = 0;
    let walletFees = 0;
    for (const row of mains) {
      const tx = executedBy.get(row.txHash);
      const ok = row.status === 'confirmed' ? tx?.isSuccess === true : row.status === 'failed' ? tx?.isSuccess !== true : false;
      if (!ok) {
        statusMismatches++;
        problems.push(
          `${row.purpose} ${row.id} is ${row.status} (${row.error ?? ''}); on chain: ${tx ? (tx.isSuccess ? 'landed' : 'failed') : 'never landed'}`,
        );
      }
      if (tx && tx.view.transaction.message.accountKeys[0] !== tank) {
        walletFees++;
        problems.push(`${row.purpose} ${row.id}: fee paid by ${tx.view.transaction.message.accountKeys[0]}, not the gas tank`);
      }
    }
    for (const id of this.expectedFailures) {
      if (mains.find((r) => r.id === id)?.status !== 'failed') problems.push(`transfer ${id} was expected to fail`);
    }
    // One job, one landed transfer: two confirmed rows of one purpose, charge and idempotency key is a double send.
    const jobs = new Map<string, number>();
    for (const row of mains.filter((r) => r.status === 'confirmed')) {
      const key = `${row.purpose}:${row.chargeId ?? ''}:${row.idempotencyKey ?? row.id}`;
      jobs.set(key, (jobs.get(key) ?? 0) + 1);
    }
    for (const [key, n] of jobs) {
      if (n > 1) {
        sentTwice++;
        problems.push(`${key} landed ${n} times`);
      }
    }
    // Fresh recipients.
    let shortOrMissing = 0;
    for (const arrival of this.arrivals) {
      const t = this.tracked.get(`${arrival.owner}:${arrival.token}`)!;
      const now = arrival.token === 'SOL' ? await lamportsOf(arrival.owner) : await usdcOf(arrival.owner);
      const received = now - t.baseline - t.outside;
      if (received > arrival.amount) sentTwice++;
      else if (received < arrival.amount) shortOrMissing++;
      if (received !== arrival.amount) problems.push(`${arrival.label}: received ${received}, expected ${arrival.amount}`);
    }
    for (const expected of this.chargeExpectations) {
      const [charge] = await getDb().select().from(charges).where(eq(charges.id, expected.chargeId));
      if (charge!.status !== expected.status) {
        statusMismatches++;
        problems.push(`charge ${expected.chargeId} is ${charge!.status}, expected ${expected.status}`);
      }
    }

    // Balances against the records: every tracked wallet, and the gas tank.
    let unaccounted = 0;
    for (const t of this.tracked.values()) {
      const mint = t.token === 'SOL' ? SOLANA_NATIVE_MINT : USDC.address;
      // The records made since its balance was read (what came before is in the baseline).
      const confirmed = mains.filter((r) => r.status === 'confirmed' && r.tokenAddress === mint && r.createdAt > t.since);
      const sum = (list: typeof mains) => list.reduce((total, r) => total + r.amountBaseUnits, 0n);
      const expected =
        t.baseline +
        t.outside +
        sum(confirmed.filter((r) => r.toAddress === t.owner)) -
        sum(confirmed.filter((r) => r.fromAddress === t.owner));
      const actual = t.token === 'SOL' ? await lamportsOf(t.owner) : await usdcOf(t.owner);
      if (actual !== expected) {
        unaccounted++;
        problems.push(`${t.owner} holds ${actual} ${t.token}, its records say ${expected}`);
      }
    }
    const tankSpent = fees.filter((r) => r.status === 'confirmed').reduce((total, r) => total + r.amountBaseUnits, 0n);
    const tankNow = await lamportsOf(tank);
    if (tankNow !== this.tankBaseline - tankSpent) {
      unaccounted++;
      problems.push(`the gas tank holds ${tankNow}, its fee records say ${this.tankBaseline - tankSpent}`);
    }
    for (const row of fees.filter((r) => r.status !== 'confirmed' && r.status !== 'failed')) {
      problems.push(`fee record ${row.id} ended ${row.status}`);
    }
    const [ledger] = await reconcileChains({ chains: [CHAIN], solanaSearchWaitMs: 0 });
    if (ledger?.error) problems.push(`reconciliation: ${ledger.error}`);
    for (const d of ledger?.discrepancies ?? []) {
      unaccounted++;
      problems.push(`ledger: ${d.holder} ${d.address} holds ${d.actual}, expected ${d.expected}`);
    }

    this.collectFaults();
    table.push({
      scenario: this.name,
      faultClass: this.faultClass,
      faults: firedText(this.fired),
      transfers: mains.length,
      sentTwice,
      shortOrMissing,
      statusMismatches,
      walletFees,
      unaccounted,
    });
    for (const fault of this.required) expect(this.fired[fault] ?? 0, `the fault ${fault} never fired`).toBeGreaterThan(0);
    expect(Object.keys(this.fired), 'no fault fired').not.toEqual([]);
    expect(problems, problems.join('\n')).toEqual([]);
  }
}

function scenario(faultClass: string, name: string, body: (s: Scenario) => Promise<void>, timeout = SCENARIO_TIMEOUT): void {
  const begun = async () => {
    sweeping.clear();
    const s = new Scenario(name, faultClass);
    await s.begin();
    return s;
  };
  scenarioTest(name, begun, body, { timeout });
}

function writeTable(file: string): void {
  writeOutcomeTable(file, table, {
    title: file,
    columns: outcomeColumns({ byClass: true, faultsHeading: 'Faults fired', extra: [['Wallet paid a fee', true, (o) => o.walletFees]] }),
    summary: byFaultClass,
  });
}

// ---------------------------------------------------------------------------------------------------------

const RPC = 'Solana: sends lost or answered with an error, statuses failing';
const TIMEOUTS = 'Solana: RPC hangs, HTTP 429 on send';
const EXPIRY = 'Solana: blockhash expiry before confirmation';
const TWICE = 'Solana: the same job run twice at once';
const KILL = 'Solana: kill -9 at the engine’s crash points';

describe('Solana money paths under RPC faults', () => {
  scenario(RPC, 'sends answered with an error after the node took them: a SOL and a USDC withdrawal, a refund to the payer', async (s) => {
    const paid = await paidCharge('SOL', '0.4');
    await s.track(paid.deposit);
    const [to1, to2] = [await stranger(), await stranger()];
    await s.expectArrival('SOL withdrawal', to1, 'SOL', sol('1.5'));
    await s.expectArrival('USDC withdrawal', to2, 'USDC', usdc('7'));
    await s.expectArrival('refund to the payer', paid.payer.address, 'SOL', sol('0.1'));
    s.inject({ failAfterSends: 3 });
    s.requireFault('fail_after_send');
    await retried(() => withdrawFromMerchantWallet(withdrawal(to1, 'SOL', '1.5')));
    await retried(() => withdrawFromMerchantWallet(withdrawal(to2, 'USDC', '7')));
    await retried(() =>
      createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: { amount: '0.1' }, idempotencyKey: newRefundRequestId() }),
    );
  });

  scenario(RPC, 'sends lost before the node: pay-from-balance (USDC, no SOL in the wallet) and a USDC wallet send', async (s) => {
    const payer = await fundedConsumer('USDC', usdc('10'));
    await s.track(payer.address);
    const charge = await newCharge('USDC', '6');
    await s.track(charge.deposit);
    const to = await stranger();
    await s.expectArrival('wallet send', to, 'USDC', usdc('3'));
    s.expectCharge(charge.chargeId, 'succeeded');
    s.inject({ loseSends: 2 });
    s.requireFault('lost_send');
    await retried(() => payFromBalance({ userId: payer.userId, chargeId: charge.chargeId, pin: PIN }));
    const sendId = newSendId();
    await retried(() =>
      sendFromWallet({ userId: payer.userId, sendId, pin: PIN, chain: CHAIN, tokenAddress: USDC.address, toAddress: to, amount: '3' }),
    );
    for (let i = 0; i < 4; i++) await jobsOnce();
  });

  scenario(
    RPC,
    'getSignatureStatuses failing half the time, else answering "not seen" for landed signatures until past their blockhash expiry: a USDC sweep, a SOL and a USDC withdrawal',
    async (s) => {
      const paid = await paidCharge('USDC', '5');
      await s.track(paid.deposit);
      await s.expectArrival('sweep', merchantWallet, 'USDC', usdc('5') - usdc('2'));
      const to = await stranger();
      await s.expectArrival('withdrawal', to, 'SOL', sol('0.3'));
      // A node without the signatures' history (pruned, or behind a balancer): "not seen" is no proof of "never landed".
      s.inject({ errorRate: 0.5, errorMethods: ['getSignatureStatuses'], missingStatusRate: 1 });
      s.requireFault('error_getSignatureStatuses', 'missing_status');
      expect(await retried(() => sweepCharge(paid.chargeId))).toBe('swept');
      await retried(() => withdrawFromMerchantWallet(withdrawal(to, 'SOL', '0.3')));
      // A USDC withdrawal from the same wallet (its 2 USDC leave as the sweep's 5 arrive).
      const to2 = await stranger();
      await s.expectArrival('USDC withdrawal', to2, 'USDC', usdc('2'));
      await retried(() => withdrawFromMerchantWallet(withdrawal(to2, 'USDC', '2')));
      const until = Date.now() + 150 * SLOT_MS + 1_500; // every blockhash of these expires while the statuses lie
      while (Date.now() < until) {
        await jobsOnce();
        await pause(200);
      }
    },
  );
});

describe('Solana: hangs and HTTP 429', () => {
  scenario(
    TIMEOUTS,
    'a send held with no answer (the node took it), then sends answered 429 and 503: a SOL withdrawal and a USDC refund',
    async (s) => {
      const paid = await paidCharge('USDC', '3');
      await s.track(paid.deposit);
      const to = await stranger();
      await s.expectArrival('withdrawal', to, 'SOL', sol('0.2'));
      await s.expectArrival('refund', paid.payer.address, 'USDC', usdc('3'));
      s.inject({
        transportFaults: { count: 3, kinds: ['hang', 'http_429', 'http_503'], methods: ['sendTransaction'], hangMs: 30_000, forward: true },
      });
      s.requireFault('transport_hang', 'transport_http_429', 'transport_http_503');
      const started = Date.now();
      await retried(() => withdrawFromMerchantWallet(withdrawal(to, 'SOL', '0.2')));
      // The held send was given up by the client's own timeout (10 s), not by the proxy letting go (30 s).
      expect(Date.now() - started).toBeLessThan(25_000);
      await retried(() => createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: {}, idempotencyKey: newRefundRequestId() }));
      for (let i = 0; i < 4; i++) await jobsOnce(); // a send refused by 429/503 is the reconciler's to send again
    },
  );
});

describe('Solana: blockhash expiry before confirmation', () => {
  scenario(
    EXPIRY,
    'a sweep whose sends never reach the node: failed once its blockhash expired, then signed anew and swept once',
    async (s) => {
      const paid = await paidCharge('SOL', '0.3');
      await s.track(paid.deposit);
      await s.expectArrival('sweep', merchantWallet, 'SOL', sol('0.3'));
      s.inject({ loseSends: 1_000 });
      s.requireFault('lost_send');
      expect(await sweepCharge(paid.chargeId)).toBe('swept');
      const [first] = await getDb()
        .select()
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.chargeId, paid.chargeId), eq(outboundTransfers.purpose, 'sweep')));
      // While its blockhash is valid, the engine sends the same bytes again and never signs a second sweep.
      for (let i = 0; i < 5; i++) {
        await jobsOnce();
        expect(await sweepCharge(paid.chargeId)).not.toBe('swept');
      }
      const until = Date.now() + 150 * SLOT_MS + 1_000;
      while (Date.now() < until) {
        await jobsOnce();
        await pause(250);
      }
      await jobsOnce();
      const [after] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, first!.id));
      expect(after).toMatchObject({ status: 'failed' });
      s.expectFailed(first!.id);
      s.heal();
      expect(await sweepCharge(paid.chargeId)).toBe('swept');
    },
  );

  scenario(
    EXPIRY,
    'a balance payment whose first transaction never reaches the node: signed again with a new blockhash once it expired, paid once, no payment.failed',
    async (s) => {
      const payer = await fundedConsumer('USDC', usdc('4'));
      await s.track(payer.address);
      const charge = await newCharge('USDC', '4');
      await s.track(charge.deposit);
      s.expectCharge(charge.chargeId, 'succeeded');
      s.inject({ loseSends: 1_000 });
      s.requireFault('lost_send');
      const first = await payFromBalance({ userId: payer.userId, chargeId: charge.chargeId, pin: PIN });
      // Lost while its blockhash is valid (the same bytes again, lost again), then expired: signed again.
      const replaced = await untilTransfer(first.transferId, (row) => row.txHash !== first.txHash);
      expect(replaced).toMatchObject({
        status: 'broadcast',
        fromAddress: payer.address,
        toAddress: charge.deposit,
        amountBaseUnits: usdc('4'),
      });
      s.note('resigned');
      s.heal(); // the replacement's lost send is sent again by the reconciler
      await settle();
      const attempts = await attemptsOf(first.transferId);
      expect(attempts.map((a) => [a.kind, a.txHash])).toEqual([
        ['original', first.txHash],
        ['new_blockhash', replaced.txHash],
      ]);
      const [landedRow] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, first.transferId));
      expect(landedRow).toMatchObject({ status: 'confirmed', txHash: replaced.txHash });
      // Exactly one transaction of the payer's on chain, and it is the replacement.
      expect(signedBy(payer.address).map((t) => t.signature)).toEqual([replaced.txHash]);
      expect(await webhooksOf(charge.chargeId, 'payment.failed')).toBe(0);
    },
  );

  scenario(
    EXPIRY,
    `a balance payment whose every send is lost: signed again ${MAX_SOLANA_RESIGNS} times, then failed (payment.failed once), nothing taken`,
    async (s) => {
      const payer = await fundedConsumer('SOL', sol('0.6'));
      await s.track(payer.address);
      const charge = await newCharge('SOL', '0.2');
      await s.track(charge.deposit);
      s.inject({ loseSends: 100_000 });
      s.requireFault('lost_send');
      const first = await payFromBalance({ userId: payer.userId, chargeId: charge.chargeId, pin: PIN });
      const failed = await untilTransfer(first.transferId, (row) => row.status === 'failed', 150_000);
      s.expectFailed(first.transferId);
      expect(failed.error).toContain(NOT_SENT_ERROR);
      const attempts = await attemptsOf(first.transferId);
      expect(attempts.map((a) => a.kind)).toEqual(['original', ...Array<string>(MAX_SOLANA_RESIGNS).fill('new_blockhash')]);
      expect(new Set(attempts.map((a) => a.txHash)).size).toBe(MAX_SOLANA_RESIGNS + 1);
      expect(signedBy(payer.address)).toEqual([]);
      expect(await webhooksOf(charge.chargeId, 'payment.failed')).toBe(1);
    },
    200_000,
  );
});

describe('Solana: duplicate submits and kill -9', () => {
  scenario(
    TWICE,
    'pay-from-balance, a withdrawal, a refund and a wallet send each submitted twice at once with the same ids, one answer lost',
    async (s) => {
      const paid = await paidCharge('SOL', '0.5');
      await s.track(paid.deposit);
      const user = await fundedConsumer('SOL', sol('1'));
      await s.track(user.address);
      const charge = await newCharge('USDC', '1.5');
      await s.track(charge.deposit);
      s.expectCharge(charge.chargeId, 'succeeded');
      const [to1, to2] = [await stranger(), await stranger()];
      await s.expectArrival('withdrawal', to1, 'USDC', usdc('4'));
      await s.expectArrival('wallet send', to2, 'SOL', sol('0.25'));
      await s.expectArrival('refund', paid.payer.address, 'SOL', sol('0.2'));
      const payer = await fundedConsumer('USDC', usdc('2'));
      await s.track(payer.address);
      s.inject({ failAfterSends: 1 });
      s.requireFault('fail_after_send');
      const draw = withdrawal(to1, 'USDC', '4');
      const send = {
        userId: user.userId,
        sendId: newSendId(),
        pin: PIN,
        chain: CHAIN,
        tokenAddress: SOLANA_NATIVE_MINT,
        toAddress: to2,
        amount: '0.25',
      };
      const refundKey = newRefundRequestId();
      const twice = <T>(action: () => Promise<T>) => Promise.all([action(), action()]);
      const [draws, sends, refunds, pays] = await Promise.all([
        twice(() => retried(() => withdrawFromMerchantWallet(draw))),
        twice(() => retried(() => sendFromWallet(send))),
        twice(() =>
          retried(() => createRefund({ ctx: refundCtx(), chargeId: paid.chargeId, body: { amount: '0.2' }, idempotencyKey: refundKey })),
        ),
        twice(() => retried(() => payFromBalance({ userId: payer.userId, chargeId: charge.chargeId, pin: PIN }))),
      ]);
      s.note('twin_submits', 4);
      expect(draws[1].transferId).toBe(draws[0].transferId);
      expect(sends[1].transferId).toBe(sends[0].transferId);
      expect(refunds[1].refund.id).toBe(refunds[0].refund.id);
      expect(pays[1].txHash).toBe(pays[0].txHash);
    },
  );

  const kills: { point: CrashPoint; op: 'pay' | 'withdraw' | 'sweep' }[] = [
    { point: 'transfer.recorded', op: 'sweep' },
    { point: 'transfer.sent', op: 'withdraw' },
    { point: 'transfer.recorded', op: 'pay' },
  ];
  scenario(
    KILL,
    `workers killed at ${kills.map((k) => `${k.point} (${k.op})`).join(', ')}, the reconciler at transfer.settling; then run again`,
    async (s) => {
      const swept = await paidCharge('USDC', '2');
      await s.track(swept.deposit);
      sweeping.add(swept.chargeId); // killed before its broadcast: if its blockhash expires meanwhile, signed anew
      await s.expectArrival('sweep', merchantWallet, 'USDC', usdc('2') - usdc('1'));
      const to = await stranger();
      await s.expectArrival('withdrawal', to, 'USDC', usdc('1'));
      const payer = await fundedConsumer('SOL', sol('1'));
      await s.track(payer.address);
      const charge = await newCharge('SOL', '0.35');
      await s.track(charge.deposit);
      s.expectCharge(charge.chargeId, 'succeeded');
      const jobOf: Record<(typeof kills)[number]['op'], Job> = {
        sweep: { op: 'sweep', chargeId: swept.chargeId },
        withdraw: { op: 'withdraw', input: withdrawal(to, 'USDC', '1') },
        pay: { op: 'pay', userId: payer.userId, chargeId: charge.chargeId, pin: PIN },
      };
      // Sent, not yet settled: the reconciler's worker dies writing its final status (or another's).
      const early = await stranger();
      await s.expectArrival('withdrawal settled by a dying reconciler', early, 'SOL', sol('0.1'));
      await withdrawFromMerchantWallet(withdrawal(early, 'SOL', '0.1'));
      const [settling, ...killed] = await Promise.all([
        runJob({ op: 'reconcile' }, 'transfer.settling'),
        ...kills.map((k) => runJob(jobOf[k.op], k.point)),
      ]);
      expect(settling!.killed, settling!.stderr).toBe(true);
      s.note('kill_transfer.settling');
      for (const [i, run] of killed.entries()) {
        expect(run.killed, `${kills[i]!.op} at ${kills[i]!.point}: ${run.stderr}`).toBe(true);
        s.note(`kill_${kills[i]!.point}`);
      }
      // The user (or the job's next pass) runs each again with the same ids; the reconciler does the rest.
      await Promise.all([
        retried(() => payFromBalance({ userId: payer.userId, chargeId: charge.chargeId, pin: PIN })),
        retried(() => withdrawFromMerchantWallet((jobOf.withdraw as Extract<Job, { op: 'withdraw' }>).input)),
      ]);
      // A payment left signed by a dead worker whose blockhash expired before anyone sent it is signed again by the
      // reconciler (a new blockhash, the same row): the charge ends paid without the payer acting again.
      await settle();
    },
  );
});
