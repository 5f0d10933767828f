/**
 * Sweeps: what a succeeded charge received at its deposit address moves on to the payee —
 * the merchant's service wallet, or `toAddress` for deliver-to-wallet and direct-transfer charges.
 *
 *  - Owed = confirmed, counted payments (late ones excluded) − sweeps sent or in flight − the part of the
 *    refunds paid from the deposit address that drew on counted funds. A refund of late funds (which are
 *    never swept) does not shrink the sweep (N11): deposit refunds draw on late funds first and record how
 *    much (`refunds.late_base_units`, lib/refunds/create-refund.ts). Overpayments go to the payee too; the excess is on the charge's timeline
 *    (`charge.overpaid`) for the merchant to refund (POST /api/charges/{id}/refunds).
 *  - EVM: a transfer of the one transaction engine (lib/transactions/): the gas tank tops up the exact fee
 *    first (charged to the merchant's daily cap), and the engine re-broadcasts, fee-bumps and settles it.
 *    The fee is at the transfer's gas limit: the estimate plus the gas of a payee emptied meanwhile (a
 *    withdrawal racing the sweep; EMPTY_RECIPIENT_SLOT_GAS, lib/transactions/prepare-transfer.ts).
 *    On a chain where smart accounts are on (SMART_ACCOUNT_CHAINS, ADR 0035), an ERC-20 sweep is instead
 *    relayed: the tank sends the deposit address's EIP-7702 smart-account call and pays its gas, so the
 *    deposit address never receives native coin (one transaction, no top-up). There, the sweeps of one chain and
 *    token due in one window go together (SWEEP_BATCH_MAX, SWEEP_BATCH_WINDOW_SECONDS): one relayed `handleOps`,
 *    one transfer row per deposit (sweepBatch). Pull sweeps (ADR 0035): a deposit's first relayed sweep of a token
 *    also approves the gas tank for it; later sweeps of deposits whose allowance covers what they owe (read from
 *    the chain) are one transaction of the tank to itself, executeBatch of transferFrom. A window may hold both:
 *    a handleOps for the granting deposits, a pull for the others. A pull that reverts fails all its rows; their
 *    deposits then sweep alone through handleOps (as every retried sweep), so nothing is sent twice.
 *    Solana: the tank is the sweep's fee payer (lib/transactions/solana/sweep-solana.ts).
 *  - Both read the chain before taking the charge's lock and check under it that what is owed has not changed:
 *    no RPC call while a row lock is held (lib/db/transaction-scope.ts refuses it outside production).
 *  - Which charges to look at comes from `sweep_schedule` (rows due now, written by database triggers when
 *    a charge succeeds or a counted payment confirms), ordered by when they are due — never by age, so one
 *    failing sweep never blocks the others.
 *  - A sweep that keeps failing (blacklisted payee, paused or reverting token, no gas) backs off
 *    exponentially (30 s, 1 min, 2 min, … up to 6 h) and stops after SWEEP_MAX_ATTEMPTS with an error log
 *    (an alert); a new payment to the charge re-arms it.
 *  - Funds of charges that did not succeed (expired, canceled, failed underpaid, late payments) stay at
 *    the deposit address, recorded on the charge, for the merchant to refund.
 *
 * Several processes may run it: the charge row lock (SKIP LOCKED) keeps two sweepers off one charge.
 */
import { address as solanaAddress } from '@solana/kit';
import { and, asc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { CHAINS, type ChainInfo, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import {
  charges,
  depositAddresses,
  outboundTransfers,
  payments,
  refunds,
  sweepSchedule,
  wallets,
  type ChargeRow,
  type OutboundTransferRow,
  type WalletFamily,
} from '@/lib/db/schema';
import { AppError, isAppError, type ErrorCode } from '@/lib/errors';
import { env } from '@/lib/env';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { log } from '@/lib/log';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { depositAccount, solanaDepositSigner } from '@/lib/keyring/deposit-addresses';
import { crashPoint } from '@/lib/crash-points';
import { broadcastTransfer, errorMessage, submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { gasTankAddress, gasTankSolanaSigner } from '@/lib/transactions/gas-tank';
import { prepareTransfer, type PreparedTransfer } from '@/lib/transactions/prepare-transfer';
import { broadcastRelayedBatch } from '@/lib/transactions/broadcast-relayed-batch';
import { recordRelayedBatch } from '@/lib/transactions/record-relayed-batch';
import { recordTransfer, type RecordedTransfer } from '@/lib/transactions/record-transfer';
import { authorizeTransfer } from '@/lib/transactions/transfer-policy';
import { EXPIRED_ERROR, recordSolanaSweep } from '@/lib/transactions/solana/solana-transfers';
import { signSolanaSweep, type SignSolanaSweepResult } from '@/lib/transactions/solana/sweep-solana';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { smartAccountStatus } from '@/lib/smart-accounts/smart-account-status';
import { readDelegation } from '@/lib/smart-accounts/read-delegation';
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import { publicClientFor } from '@/lib/chains/clients';
import { erc20Abi, type Address, type PublicClient } from 'viem';

export type SweepOutcome = 'nothing_owed' | 'in_flight' | 'swept' | 'backing_off' | 'stuck' | 'not_sweepable' | 'busy' | 'waiting_for_gas';

/** Attempts (failed sweep transfers + passes that could not sign) before a sweep stops and alerts. */
export const SWEEP_MAX_ATTEMPTS = 8;
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_MAX_MS = 6 * 60 * 60_000;
/** A sweep in flight is looked at again this soon (its transfer may fail and need a new one). */
const IN_FLIGHT_RECHECK_MS = 15_000;

/** Errors that say the service cannot sign anything right now; they do not count against a sweep. */
const OUTAGES = new Set<ErrorCode>(['gas_tank_empty', 'chain_unavailable', 'gas_sponsorship_limit', 'service_unavailable']);
const OUTAGE_RETRY_MS = 60_000;

function backoffMs(attempts: number): number {
  return Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1), BACKOFF_MAX_MS);
}

/** Charges whose sweep is due now, soonest first. */
export async function chargesAwaitingSweep(limit = 50, now = new Date()): Promise<string[]> {
  const rows = await getDb()
    .select({ chargeId: sweepSchedule.chargeId })
    .from(sweepSchedule)
    .where(and(isNotNull(sweepSchedule.dueAt), lte(sweepSchedule.dueAt, now)))
    .orderBy(asc(sweepSchedule.dueAt))
    .limit(limit);
  return rows.map((row) => row.chargeId);
}

/**
 * The scheduler's entry point: one pass over the charges whose sweep is due. On a sponsored chain (ADR 0035)
 * the ERC-20 sweeps of one chain and token go together, SWEEP_BATCH_MAX at most to one relayed transaction
 * (sweepBatch), each batch once its SWEEP_BATCH_WINDOW_SECONDS window ends or it is full.
 */
export async function sweepDueCharges(options: SolanaRpcOptions = {}): Promise<number> {
  const now = new Date();
  const { batches, singles } = await planBatches(await chargesAwaitingSweep(), now);
  let swept = 0;
  for (const chargeId of singles) {
    try {
      if ((await sweepCharge(chargeId, options, now)) === 'swept') swept++;
    } catch (error) {
      log.warn('sweep pass failed; retried later', { chargeId, error: errorMessage(error) });
      await reschedule(chargeId, { signError: errorMessage(error) });
    }
  }
  for (const batch of batches) {
    try {
      for (const outcome of (await sweepBatch(batch, now)).values()) if (outcome === 'swept') swept++;
    } catch (error) {
      log.warn('batched sweep pass failed; retried later', { chargeIds: batch, error: errorMessage(error) });
      for (const chargeId of batch) await reschedule(chargeId, { signError: errorMessage(error) });
    }
  }
  return swept;
}

/**
 * Which due charges sweep alone and which together: EVM ERC-20 sweeps on a chain whose sweeps are relayed
 * (smartAccountStatus), grouped by chain and token. A group goes now in chunks of SWEEP_BATCH_MAX; what is left
 * (a chunk not full) goes now only if one of its charges fell due before the current window began (windows of
 * SWEEP_BATCH_WINDOW_SECONDS aligned to the clock), else all of it waits for the window's end — so a sweep
 * waits at most one window, and no state but the schedule's due time is kept.
 */
async function planBatches(due: string[], now: Date): Promise<{ batches: string[][]; singles: string[] }> {
  const { SWEEP_BATCH_MAX: max, SWEEP_BATCH_WINDOW_SECONDS: windowSeconds } = env();
  if (max <= 1 || due.length === 0) return { batches: [], singles: due };
  const rows = await getDb()
    .select({ charge: charges, dueAt: sweepSchedule.dueAt })
    .from(charges)
    .innerJoin(sweepSchedule, eq(sweepSchedule.chargeId, charges.id))
    .where(inArray(charges.id, due));
  const byId = new Map(rows.map((row) => [row.charge.id, row]));
  const sponsored = new Map<ChainName, boolean>();
  const groups = new Map<string, { id: string; dueAt: Date }[]>();
  const singles: string[] = [];
  for (const id of due) {
    const row = byId.get(id);
    const chain = row?.charge.chain as ChainName | undefined;
    const token = row ? tokenOfCharge(row.charge) : undefined;
    if (!row || !chain || !CHAINS[chain] || CHAINS[chain].family !== 'evm' || !token || token.isNative) {
      singles.push(id);
      continue;
    }
    if (!sponsored.has(chain)) sponsored.set(chain, (await smartAccountStatus(chain)).path === 'sponsored');
    if (!sponsored.get(chain)) {
      singles.push(id);
      continue;
    }
    const key = `${chain}:${token.address.toLowerCase()}`;
    groups.set(key, [...(groups.get(key) ?? []), { id, dueAt: row.dueAt ?? now }]);
  }
  const windowMs = windowSeconds * 1000;
  const windowStart = windowMs > 0 ? Math.floor(now.getTime() / windowMs) * windowMs : now.getTime();
  const batches: string[][] = [];
  for (const members of groups.values()) {
    for (let i = 0; i < members.length; i += max) {
      const chunk = members.slice(i, i + max);
      if (chunk.length === max || windowMs === 0 || chunk.some((m) => m.dueAt.getTime() <= windowStart)) {
        batches.push(chunk.map((m) => m.id));
      } else {
        for (const m of chunk) await reschedule(m.id, { at: new Date(windowStart + windowMs) });
      }
    }
  }
  return { batches, singles };
}

interface SweepState {
  charge: ChargeRow;
  deposit: typeof depositAddresses.$inferSelect;
  owed: bigint;
  inFlight: boolean;
  failedSweeps: number;
  lastFailureAt?: Date;
}

/** What the charge's deposit address owes its payee, from the records (no chain reads). */
async function sweepState(tx: DbOrTx, chargeId: string, options: { lock?: boolean } = {}): Promise<SweepState | 'not_sweepable' | 'busy'> {
  const query = tx.select().from(charges).where(eq(charges.id, chargeId));
  const [charge] = options.lock ? await query.for('update', { skipLocked: true }) : await query;
  if (!charge) return options.lock ? 'busy' : 'not_sweepable';
  if (charge.status !== 'succeeded') return 'not_sweepable';
  const [deposit] = await tx.select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
  if (!deposit || !tokenOfCharge(charge)) return 'not_sweepable';
  const [received] = await tx
    .select({ total: sql<string>`coalesce(sum(${payments.amountBaseUnits}), 0)::text` })
    .from(payments)
    .where(and(eq(payments.chargeId, charge.id), eq(payments.status, 'confirmed'), eq(payments.isLate, false)));
  // What left the deposit address in the charge's token: sweeps, and refunds paid from there.
  const outgoing = await tx
    .select()
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chargeId, charge.id), eq(outboundTransfers.fromAddress, deposit.address)));
  const leaving = outgoing.filter((t) => (t.purpose === 'sweep' || t.purpose === 'refund') && t.status !== 'failed');
  // Late funds are never swept: what a deposit refund took of them is not owed less (N11).
  const refundIds = leaving.filter((t) => t.purpose === 'refund').map((t) => t.id);
  const [lateRefunded] = refundIds.length
    ? await tx
        .select({ total: sql<string>`coalesce(sum(${refunds.lateBaseUnits}), 0)::text` })
        .from(refunds)
        .where(inArray(refunds.transferId, refundIds))
    : [{ total: '0' }];
  // A Solana sweep whose blockhash expired unlanded is routine, not a failing sweep: it is signed again at once.
  const failed = outgoing.filter((t) => t.purpose === 'sweep' && t.status === 'failed' && t.error !== EXPIRED_ERROR);
  return {
    charge,
    deposit,
    owed: BigInt(received!.total) - leaving.reduce((sum, t) => sum + t.amountBaseUnits, 0n) + BigInt(lateRefunded!.total),
    inFlight: leaving.some((t) => t.purpose === 'sweep' && t.status !== 'confirmed'),
    failedSweeps: failed.length,
    lastFailureAt: failed.reduce<Date | undefined>((latest, t) => (!latest || t.updatedAt > latest ? t.updatedAt : latest), undefined),
  };
}

/** Before signing: what the records say of a charge's sweep, and whether to sign one now (or what happened instead). */
async function sweepReadiness(chargeId: string, now: Date): Promise<{ outcome: SweepOutcome } | { state: SweepState; retrying: boolean }> {
  const state = await sweepState(getDb(), chargeId);
  if (state === 'not_sweepable' || state === 'busy') {
    await reschedule(chargeId, { done: true });
    return { outcome: state };
  }
  if (state.owed <= 0n) {
    await reschedule(chargeId, state.inFlight ? { at: new Date(now.getTime() + IN_FLIGHT_RECHECK_MS) } : { done: true });
    return { outcome: state.inFlight ? 'in_flight' : 'nothing_owed' };
  }
  const [schedule] = await getDb().select().from(sweepSchedule).where(eq(sweepSchedule.chargeId, chargeId));
  const attempts = state.failedSweeps + (schedule?.signErrors ?? 0);
  if (attempts >= SWEEP_MAX_ATTEMPTS) {
    await markStuck(state, schedule?.lastError ?? 'its sweep transfers kept failing');
    return { outcome: 'stuck' };
  }
  const lastTry = [state.lastFailureAt, attempts > 0 ? schedule?.updatedAt : undefined].filter((d): d is Date => !!d);
  const retryAt = lastTry.length ? Math.max(...lastTry.map((d) => d.getTime())) + backoffMs(attempts) : 0;
  if (retryAt > now.getTime()) {
    await reschedule(chargeId, { at: new Date(retryAt) });
    return { outcome: 'backing_off' };
  }
  return { state, retrying: attempts > 0 };
}

/** A sweep that could not be signed: an outage waits uncounted, anything else counts and backs off. */
async function signFailed(chargeId: string, error: AppError, now: Date): Promise<SweepOutcome> {
  // Could not sign (gas caps, an empty tank, a node refusing to estimate): counted, backed off, alerted at the end.
  if (OUTAGES.has(error.code)) {
    // The service's problem, not this sweep's (an empty tank, a node down, today's gas cap): retry, uncounted.
    log.warn('sweep waits for an outage to end', { chargeId, reason: error.code, error: error.message });
    await reschedule(chargeId, { at: new Date(now.getTime() + OUTAGE_RETRY_MS) });
    return 'waiting_for_gas';
  }
  log.warn('sweep could not be signed; backing off', { chargeId, reason: error.code, error: error.message });
  await reschedule(chargeId, { signError: `${error.code}: ${error.message}` });
  return 'backing_off';
}

/**
 * One pass of a charge's sweep: sign and record what is owed (after backing off from earlier failures),
 * then send it. Returns what it did; the schedule says when to look again.
 */
export async function sweepCharge(chargeId: string, options: SolanaRpcOptions = {}, now = new Date()): Promise<SweepOutcome> {
  const ready = await sweepReadiness(chargeId, now);
  return 'outcome' in ready ? ready.outcome : sweepReadyCharge(ready.state, options, now);
}

async function sweepReadyCharge(state: SweepState, options: SolanaRpcOptions, now: Date): Promise<SweepOutcome> {
  const chargeId = state.charge.id;
  let step: SweepStep;
  try {
    step = state.deposit.family === 'evm' ? await sweepEvm(state) : await sweepSolana(state, options);
  } catch (error) {
    if (!isAppError(error)) throw error;
    return signFailed(chargeId, error, now);
  }
  if (step.outcome === 'swept') await reschedule(chargeId, { at: new Date(now.getTime() + IN_FLIGHT_RECHECK_MS), clearError: true });
  if (step.outcome === 'waiting_for_gas') await reschedule(chargeId, { at: new Date(now.getTime() + OUTAGE_RETRY_MS) });
  // A background job does not wait for the top-up's block: the reconciler sends the sweep once it lands.
  if (step.recorded) await submitTransfer(step.recorded, { waitForGasMs: 0 });
  else if (step.transferId) {
    crashPoint('transfer.recorded'); // Solana: recorded here, not by submitTransfer
    await broadcastTransfer(step.transferId, options);
  }
  return step.outcome;
}

/**
 * Batched sweeps (ADR 0035, "Batched sweeps"): the charges' deposit addresses, all of one sponsored chain and
 * token, swept by one relayed `handleOps` — one transaction of the gas tank, one recorded transfer per deposit
 * (lib/transactions/record-relayed-batch.ts), committed before anything is broadcast. Each charge is checked as
 * a single sweep is (what is owed, in flight, backing off, stuck); one whose earlier sweeps failed, or the only
 * one left, sweeps alone, so one deposit that keeps failing cannot hold a batch back. The chain is read for all
 * of them first, then each charge's lock taken (SKIP LOCKED: a charge another worker holds stays out of this
 * batch) and what is owed checked unchanged; one transaction of the database records them all. Deposits whose
 * allowance to the tank covers what they owe are pulled (a second transaction, the tank's executeBatch of
 * transferFrom); the others grant that allowance in their operation (ADR 0035, "Pull sweeps").
 */
export async function sweepBatch(chargeIds: string[], now = new Date()): Promise<Map<string, SweepOutcome>> {
  const outcomes = new Map<string, SweepOutcome>();
  const ready: SweepState[] = [];
  for (const chargeId of chargeIds) {
    const readiness = await sweepReadiness(chargeId, now);
    if ('outcome' in readiness) outcomes.set(chargeId, readiness.outcome);
    else if (readiness.retrying) outcomes.set(chargeId, await sweepReadyCharge(readiness.state, {}, now));
    else ready.push(readiness.state);
  }
  // Together only EVM ERC-20 sweeps of one chain whose sweeps are relayed now (even one: it may grant or be pulled);
  // anything else alone.
  const chain = ready[0]?.charge.chain as ChainName | undefined;
  const together =
    ready.length > 0 &&
    ready.every((state) => state.charge.chain === chain && state.deposit.family === 'evm' && !tokenOfCharge(state.charge).isNative) &&
    (await smartAccountStatus(chain!)).path === 'sponsored';
  if (!together) {
    for (const state of ready) outcomes.set(state.charge.id, await sweepReadyCharge(state, {}, now));
    return outcomes;
  }

  const items: RelayedSweep[] = [];
  for (const state of ready) {
    try {
      const item = await prepareRelayedSweep(state);
      if (item) items.push(item);
      else outcomes.set(state.charge.id, 'not_sweepable');
    } catch (error) {
      if (!isAppError(error)) throw error;
      outcomes.set(state.charge.id, await signFailed(state.charge.id, error, now));
    }
  }
  if (items.length === 0) return outcomes;
  // Pull sweeps (ADR 0035): deposits whose allowance to the tank covers what they owe are pulled by the tank's own
  // transaction; the others go through handleOps and grant the allowance on the way. Two transactions at most.
  const pulls = items.filter((item) => item.pulled);
  const tankDelegated =
    pulls.length > 0 &&
    (await readDelegation(chainClient(chain!), gasTankAddress()).catch(() => undefined)) === SIMPLE_7702_ACCOUNT_ADDRESS;
  let recorded: {
    transfers: OutboundTransferRow[];
    items: RelayedSweep[];
    leftOut: { item: RelayedSweep; kind: string; reason: string }[];
  }[];
  try {
    recorded = await getDb().transaction(async (tx) => {
      const locked: RelayedSweep[] = [];
      for (const item of items) {
        const state = await sweepState(tx, item.state.charge.id, { lock: true });
        if (state === 'busy' || state === 'not_sweepable') outcomes.set(item.state.charge.id, state);
        else if (state.owed !== item.state.owed)
          outcomes.set(item.state.charge.id, 'busy'); // changed since the chain was read
        else locked.push({ ...item, state });
      }
      const groups = [locked.filter((item) => !item.pulled), locked.filter((item) => item.pulled)].filter((group) => group.length);
      const out = [];
      for (const group of groups) {
        const pulled = group[0]!.pulled;
        const batch = await recordRelayedBatch(
          tx,
          group.map((item) => ({
            prepared: item.prepared,
            signer: item.account,
            purpose: 'sweep' as const,
            authorization: {
              authority: { kind: 'system', job: 'sweep' },
              destination: { class: item.state.charge.toAddress ? 'charge_payee' : 'merchant_wallet' },
            },
            chargeId: item.state.charge.id,
            gasSponsor: { merchantId: item.state.charge.merchantId },
            grant: !pulled,
          })),
          pulled ? { pull: { tankDelegated } } : {},
        );
        for (const transfer of batch.transfers) {
          const item = group.find((i) => i.state.charge.id === transfer.chargeId)!;
          await recordSweepEvent(tx, item.state, {
            txHash: transfer.txHash,
            payee: item.payee,
            tokenAddress: item.prepared.spend.token.address,
          });
        }
        out.push({
          transfers: batch.transfers,
          items: group,
          leftOut: batch.leftOut.map(({ index, kind, reason }) => ({ item: group[index]!, kind, reason })),
        });
      }
      return out;
    });
  } catch (error) {
    if (!isAppError(error)) throw error;
    for (const item of items) outcomes.set(item.state.charge.id, await signFailed(item.state.charge.id, error, now));
    return outcomes;
  }
  for (const { item, kind, reason } of recorded.flatMap((group) => group.leftOut)) {
    const chargeId = item.state.charge.id;
    log.warn('a sweep was left out of its batch', { chargeId, reason });
    if (kind === 'sponsorship_limit')
      outcomes.set(chargeId, await signFailed(chargeId, new AppError('gas_sponsorship_limit', reason), now));
    else if (kind === 'in_flight') {
      await reschedule(chargeId, { at: new Date(now.getTime() + IN_FLIGHT_RECHECK_MS) });
      outcomes.set(chargeId, 'in_flight');
    } else outcomes.set(chargeId, await signFailed(chargeId, new AppError('insufficient_balance', reason), now));
  }
  for (const transfer of recorded.flatMap((group) => group.transfers)) {
    outcomes.set(transfer.chargeId!, 'swept');
    await reschedule(transfer.chargeId!, { at: new Date(now.getTime() + IN_FLIGHT_RECHECK_MS), clearError: true });
  }
  // In nonce order: the handleOps first, then the pull.
  for (const group of recorded) if (group.transfers.length) await broadcastRelayedBatch(group.transfers);
  return outcomes;
}

/** One deposit's part of a batch: its key, its payee and what the chain said (read with no lock held). */
interface RelayedSweep {
  state: SweepState;
  account: ReturnType<typeof depositAccount>;
  payee: string;
  prepared: PreparedTransfer;
  /** Its allowance to the gas tank covers what it owes: the tank pulls it (else its operation grants one). */
  pulled: boolean;
}

function chainClient(chain: ChainName): PublicClient {
  const client = publicClientFor(chain);
  if (!client) throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable right now. Try again shortly.`);
  return client;
}

async function prepareRelayedSweep(state: SweepState): Promise<RelayedSweep | undefined> {
  const account = depositAccount(state.deposit.derivationIndex);
  if (account.address !== state.deposit.address) {
    log.error('deposit key does not match its address; check DEPOSIT_HD_SEED', {
      chargeId: state.charge.id,
      address: state.deposit.address,
    });
    return undefined;
  }
  const payee = await payeeOf(getDb(), state.charge, 'evm');
  const chain = state.charge.chain as ChainName;
  const token = tokenOfCharge(state.charge);
  const [prepared, allowance] = await Promise.all([
    prepareTransfer({
      chain,
      from: account.address,
      spend: { token, amount: state.owed, recipient: payee },
      gasSponsored: true,
      relayed: true,
    }),
    // Authoritative and read with the balance, before any lock: what the tank may pull from the deposit.
    chainClient(chain)
      .readContract({
        address: token.address as Address,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [account.address, gasTankAddress()],
      })
      .catch(() => {
        throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable right now. Try again shortly.`);
      }),
  ]);
  return { state, account, payee, prepared, pulled: allowance >= state.owed };
}

/** What one pass did, and what it recorded (sent after commit). */
interface SweepStep {
  outcome: SweepOutcome;
  recorded?: RecordedTransfer;
  transferId?: string;
}

/** EVM: the deposit key signs the sweep through the engine; the gas tank pays the fee (the merchant's daily cap). */
async function sweepEvm(state: SweepState): Promise<SweepStep> {
  const token = tokenOfCharge(state.charge);
  const payee = await payeeOf(getDb(), state.charge, 'evm');
  const account = depositAccount(state.deposit.derivationIndex);
  if (account.address !== state.deposit.address) {
    log.error('deposit key does not match its address; check DEPOSIT_HD_SEED', {
      chargeId: state.charge.id,
      address: state.deposit.address,
    });
    return { outcome: 'not_sweepable' };
  }
  const chain = state.charge.chain as ChainName;
  // ADR 0035: where the chain relays smart-account calls, the tank sends the deposit's own call (no top-up).
  const relayed = !token.isNative && (await smartAccountStatus(chain)).path === 'sponsored';
  const prepared = await prepareTransfer({
    chain,
    from: account.address,
    spend: { token, amount: state.owed, recipient: payee },
    gasSponsored: true,
    relayed,
  });
  return getDb().transaction(async (tx): Promise<SweepStep> => {
    const locked = await sweepState(tx, state.charge.id, { lock: true });
    if (locked === 'busy' || locked === 'not_sweepable') return { outcome: locked };
    if (locked.owed !== state.owed) return { outcome: 'busy' }; // changed since the chain was read: next pass
    const recorded = await recordTransfer(tx, {
      prepared,
      signer: account,
      purpose: 'sweep',
      authorization: {
        authority: { kind: 'system', job: 'sweep' },
        destination: { class: state.charge.toAddress ? 'charge_payee' : 'merchant_wallet' },
      },
      chargeId: state.charge.id,
      gasSponsor: { merchantId: state.charge.merchantId },
      senderLabel: 'The deposit address',
    });
    await recordSweepEvent(tx, locked, { txHash: recorded.transfer.txHash, payee, tokenAddress: token.address });
    return { outcome: 'swept', recorded };
  });
}

/**
 * Solana: read the chain and sign first (balance, rent, blockhash, the tank's balance; no transaction open),
 * then take the charge's lock, check nothing changed, and record (review N12, as sweepEvm). Signing sends
 * nothing: bytes that are never recorded are never broadcast.
 */
async function sweepSolana(state: SweepState, options: SolanaRpcOptions): Promise<SweepStep> {
  const chain = CHAINS[state.charge.chain as ChainName];
  const token = tokenOfCharge(state.charge);
  const signed = await signSolanaSweepStep({ ...state, chain, token }, options);
  if (signed.outcome !== 'signed') return signed;
  return getDb().transaction(async (tx): Promise<SweepStep> => {
    const locked = await sweepState(tx, state.charge.id, { lock: true });
    if (locked === 'busy' || locked === 'not_sweepable') return { outcome: locked };
    if (locked.owed !== state.owed) return { outcome: 'busy' }; // changed since the chain was read: next pass
    const { sweep, payee } = signed;
    // The same gate as the engine's (Solana has no prepared call: the sweep's instructions are built from these).
    await authorizeTransfer(tx, {
      prepared: { chain: chain.name, from: state.deposit.address, spend: { token, amount: state.owed, recipient: payee } },
      purpose: 'sweep',
      chargeId: state.charge.id,
      authorization: {
        authority: { kind: 'system', job: 'sweep' },
        destination: { class: state.charge.toAddress ? 'charge_payee' : 'merchant_wallet' },
      },
    });
    const recorded = await recordSolanaSweep(tx, {
      chargeId: state.charge.id,
      chain: chain.name,
      from: state.deposit.address,
      payee,
      token,
      // What the transaction moves: a SOL remainder too small to stay rent-exempt goes along.
      amount: sweep.amount,
      feePayer: signed.feePayer,
      signature: sweep.signature,
      wireTransaction: sweep.wireTransaction,
      feePayerCost: sweep.feePayerCost,
    });
    await recordSweepEvent(tx, locked, { txHash: recorded.txHash, payee, tokenAddress: token.address });
    return { outcome: 'swept', transferId: recorded.id };
  });
}

async function recordSweepEvent(
  tx: DbOrTx,
  state: SweepState,
  sweep: { txHash: string; payee: string; tokenAddress: string },
): Promise<void> {
  await recordChargeEvent(tx, {
    chargeId: state.charge.id,
    fromStatus: 'succeeded',
    toStatus: 'succeeded',
    actor: 'system:sweeper',
    type: 'charge.sweep_submitted',
    data: { txHash: sweep.txHash, to: sweep.payee, amountBaseUnits: state.owed.toString(), tokenAddress: sweep.tokenAddress },
  });
}

/** Moves the charge's schedule: done (nothing to do), a time to look again, or one more failed attempt (backed off). */
async function reschedule(
  chargeId: string,
  change: { done: true } | { at: Date; clearError?: boolean } | { signError: string },
): Promise<void> {
  const values =
    'done' in change
      ? { dueAt: null, signErrors: 0, lastError: null }
      : 'at' in change
        ? { dueAt: change.at, ...(change.clearError ? { lastError: null } : {}) }
        : { dueAt: new Date(), signErrors: sql`${sweepSchedule.signErrors} + 1`, lastError: change.signError.slice(0, 500) };
  await getDb()
    .insert(sweepSchedule)
    .values({ chargeId, dueAt: 'dueAt' in values ? (values.dueAt as Date | null) : null })
    .onConflictDoUpdate({ target: sweepSchedule.chargeId, set: values });
}

async function markStuck(state: SweepState, reason: string): Promise<void> {
  await getDb()
    .update(sweepSchedule)
    .set({ dueAt: null, stuckAt: new Date(), lastError: reason })
    .where(eq(sweepSchedule.chargeId, state.charge.id));
  log.error('sweep stopped after repeated failures: the funds wait at the deposit address', {
    chargeId: state.charge.id,
    merchantId: state.charge.merchantId,
    chain: state.charge.chain,
    depositAddress: state.deposit.address,
    owedBaseUnits: state.owed.toString(),
    reason,
  });
}

interface SweepInput {
  charge: ChargeRow;
  chain: ChainInfo;
  deposit: typeof depositAddresses.$inferSelect;
  token: TokenInfo;
  owed: bigint;
}

/** Solana: one transaction signed by the deposit key, the gas tank paying its fee (and any token-account rent). Chain reads only. */
async function signSolanaSweepStep(
  { charge, chain, deposit, token, owed }: SweepInput,
  options: SolanaRpcOptions,
): Promise<
  | { outcome: 'signed'; sweep: Extract<SignSolanaSweepResult, { kind: 'signed' }>; payee: string; feePayer: string }
  | { outcome: 'not_sweepable' | 'waiting_for_gas' }
> {
  const rpc = resolveSolanaRpc(chain.name, options);
  if (!rpc) return { outcome: 'not_sweepable' };
  const depositSigner = await solanaDepositSigner(deposit.derivationIndex);
  if (depositSigner.address !== deposit.address) {
    // DEPOSIT_HD_SEED is not the seed this address was derived from: signing would move nothing.
    log.error('solana deposit key does not match its address; check DEPOSIT_HD_SEED', { chargeId: charge.id, address: deposit.address });
    return { outcome: 'not_sweepable' };
  }
  const payee = await payeeOf(getDb(), charge, 'solana');
  const feePayer = await gasTankSolanaSigner();
  const signed = await signSolanaSweep(rpc, { feePayer, deposit: depositSigner, payee: solanaAddress(payee), token, amount: owed });
  if (signed.kind === 'fee_payer_short') {
    log.warn('gas tank short of SOL for a sweep; fund it (npm run admin -- gas-tank status)', {
      chain: chain.name,
      tank: feePayer.address,
      needed: signed.needed.toString(),
      balance: signed.balance.toString(),
    });
    return { outcome: 'waiting_for_gas' };
  }
  return { outcome: 'signed', sweep: signed, payee, feePayer: feePayer.address };
}

/** Where a charge's funds end: its toAddress when it has one, else the merchant's service wallet of the chain's family. */
async function payeeOf(tx: DbOrTx, charge: { merchantId: string; toAddress: string | null }, family: WalletFamily): Promise<string> {
  if (charge.toAddress) return charge.toAddress;
  const [existing] = await tx
    .select({ address: wallets.address })
    .from(wallets)
    .where(and(eq(wallets.merchantId, charge.merchantId), eq(wallets.family, family)));
  if (existing) return existing.address;
  const created = await ensureMerchantWallets(tx, charge.merchantId);
  return created.find((w) => w.family === family)!.address;
}
