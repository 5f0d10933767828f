/**
 * The fulfilment job: every pending fulfilment (armed by the database when its charge succeeded) becomes
 * one contract call from the merchant's service wallet, through the transaction engine like every send.
 *
 * Exactly once, whatever crashes:
 *  - the row exists from the commit that made the charge succeed (trigger), and (charge, rule) is unique;
 *  - the call is recorded (`recordTransfer`, purpose `fulfilment`) in the same transaction that moves the
 *    row to `submitted` under its lock, taken with SKIP LOCKED, so two workers never record it twice;
 *  - it is broadcast after commit (`submitTransfer`); a crash in between leaves a `signed` transfer the
 *    reconciler sends (the same bytes: mined at most once);
 *  - its end (confirmed at depth, or failed) is written by the engine's purpose hook (settle-fulfilment.ts).
 *
 * Before anything is read from the chain, the rule is checked again as it stands today, whenever it was
 * saved: a token-moving function (token-moving-selectors.ts) or a contract that is a known token
 * (refuse-token-contract.ts) fails the row; a charge whose price the payer chose (publishable key) fails
 * it unless the rule's price list is met (price-list-refusal.ts). Nothing is sent in any of these cases.
 * The call's gas limit is capped lower than the gas tank's (FULFILMENT_GAS_LIMIT_MAX, finding N18).
 *
 * Before recording, the call is simulated from the service wallet: a call that would revert (no minter
 * role, a receiver that refuses the item) is recorded as failed with the contract's reason and costs no
 * gas. A network that cannot be reached postpones the row; every other problem fails it with what to fix,
 * for the merchant's retry.
 */
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import { BaseError, ContractFunctionRevertedError, encodeFunctionData, parseAbi, type Address, type PublicClient } from 'viem';
import { CHAINS, nativeToken, type ChainName } from '@/lib/chains/registry';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { crashPoint } from '@/lib/crash-points';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { apiKeys, charges, fulfilmentRules, fulfilments, merchantContracts, payments, wallets } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { isAppError } from '@/lib/errors';
import { log } from '@/lib/log';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { prepareTransfer } from '@/lib/transactions/prepare-transfer';
import { recordTransfer, type RecordedTransfer } from '@/lib/transactions/record-transfer';
import { accountFromKey } from '@/lib/transactions/account-from-key';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { openWalletKey } from '@/lib/keyring/envelope';
import { bindArguments } from './bind-arguments';
import { priceListRefusal } from './price-list-refusal';
import { isKnownToken } from './refuse-token-contract';
import { tokenMovingFunction } from '@/lib/transactions/token-moving-selectors';
import { emitFulfilmentEvent } from './emit-fulfilment-event';
import { chainClient } from './inspect-contract';
import { fulfilmentMachine } from './state';
import { statusIs } from '@/lib/db/status-is';

/** A network that could not be reached is tried again after this long. */
const POSTPONE_MS = 30_000;

/** Errors of common OpenZeppelin contracts, so a simulated revert reads as what to fix. */
const KNOWN_ERRORS = parseAbi([
  'error AccessControlUnauthorizedAccount(address account, bytes32 neededRole)',
  'error OwnableUnauthorizedAccount(address account)',
  'error ERC1155InvalidReceiver(address receiver)',
  'error ERC721InvalidReceiver(address receiver)',
  'error ERC721InvalidSender(address sender)',
]);

export type StartOutcome = 'submitted' | 'failed' | 'postponed' | 'busy';

/** The scheduler's entry point. Returns how many fulfilments were submitted. */
export async function startDueFulfilments(now = new Date(), limit = 20): Promise<number> {
  const due = await getDb()
    .select({ id: fulfilments.id })
    .from(fulfilments)
    .where(and(statusIs(fulfilments.status, 'pending'), lte(fulfilments.nextAttemptAt, now)))
    .orderBy(fulfilments.nextAttemptAt)
    .limit(limit);
  let submitted = 0;
  for (const { id } of due) {
    try {
      if ((await startFulfilment(id)) === 'submitted') submitted++;
    } catch (error) {
      log.warn('fulfilment could not start; tried again on the next pass', { fulfilmentId: id, error });
    }
  }
  return submitted;
}

/** Record the call, then broadcast it. */
export async function startFulfilment(fulfilmentId: string): Promise<StartOutcome> {
  const step = await recordFulfilment(fulfilmentId);
  if (step.recorded) await submitTransfer(step.recorded, { waitForGasMs: 0 });
  return step.outcome;
}

/** Step 1 (exported for the crash test): bind, simulate, read the chain, then record under the row's lock — nothing is broadcast. */
export async function recordFulfilment(fulfilmentId: string): Promise<{ outcome: StartOutcome; recorded?: RecordedTransfer }> {
  const [row] = await getDb()
    .select({ fulfilment: fulfilments, rule: fulfilmentRules, contract: merchantContracts, charge: charges, keyKind: apiKeys.kind })
    .from(fulfilments)
    .innerJoin(fulfilmentRules, eq(fulfilmentRules.id, fulfilments.ruleId))
    .innerJoin(merchantContracts, eq(merchantContracts.id, fulfilmentRules.contractId))
    .innerJoin(charges, eq(charges.id, fulfilments.chargeId))
    .innerJoin(apiKeys, eq(apiKeys.id, charges.apiKeyId))
    .where(eq(fulfilments.id, fulfilmentId));
  if (!row || row.fulfilment.status !== 'pending') return { outcome: 'busy' };
  const { rule, contract, charge } = row;
  const chain = contract.chain as ChainName;
  const fn = rule.functionAbi;

  // Rules saved before these checks existed are held to them too: nothing is sent.
  const movesTokens = tokenMovingFunction(fn);
  if (movesTokens) {
    return {
      outcome: await failFulfilment(
        fulfilmentId,
        `Not sent: ${rule.functionSignature} has the selector of ${movesTokens}, which moves or approves tokens; fulfilment never calls one. Delete this rule.`,
      ),
    };
  }
  const token = await isKnownToken(getDb(), { chain, address: contract.address });
  if (token) {
    return {
      outcome: await failFulfilment(fulfilmentId, `Not sent: ${contract.address} is ${token}; fulfilment calls item contracts only.`),
    };
  }
  const unpriced = priceListRefusal({ keyKind: row.keyKind, priceList: rule.priceList, charge });
  if (unpriced) return { outcome: await failFulfilment(fulfilmentId, unpriced) };

  let bound;
  try {
    bound = bindArguments({ fn, bindings: rule.bindings, charge, payer: await payerOf(getDb(), charge.id) });
  } catch (error) {
    return { outcome: await failFulfilment(fulfilmentId, `The arguments could not be bound: ${(error as Error).message}.`) };
  }
  let client: PublicClient;
  try {
    client = chainClient(chain);
  } catch {
    return { outcome: await postpone(fulfilmentId) };
  }
  const wallet = (await ensureMerchantWallets(getDb(), charge.merchantId)).find((w) => w.family === 'evm')!;
  const from = wallet.address as Address;
  const to = contract.address as Address;

  const simulated = await simulate(client, { fn, args: bound.args, from, to });
  if (simulated.kind === 'unreachable') return { outcome: await postpone(fulfilmentId) };
  if (simulated.kind === 'reverts') {
    return { outcome: await failFulfilment(fulfilmentId, `The call would revert: ${simulated.reason}. Nothing was sent.`, bound) };
  }

  const data = encodeFunctionData({ abi: [fn], functionName: fn.name, args: bound.args });
  let prepared;
  try {
    prepared = await prepareTransfer({
      chain,
      from,
      spend: { token: nativeToken(CHAINS[chain]), amount: 0n, recipient: to },
      call: { to, value: 0n, data },
      gasSponsored: true,
    });
  } catch (error) {
    if (isAppError(error) && error.code === 'chain_unavailable') return { outcome: await postpone(fulfilmentId) };
    throw error;
  }
  const gasCap = BigInt(env().FULFILMENT_GAS_LIMIT_MAX);
  if (prepared.gas > gasCap) {
    return {
      outcome: await failFulfilment(
        fulfilmentId,
        `Not sent: the call needs ${prepared.gas} gas, more than the ${gasCap} a fulfilment may use. Make the mint cheaper, or ask your operator to raise FULFILMENT_GAS_LIMIT_MAX.`,
        bound,
      ),
    };
  }

  try {
    return await getDb().transaction(async (tx) => {
      const [locked] = await tx.select().from(fulfilments).where(eq(fulfilments.id, fulfilmentId)).for('update', { skipLocked: true });
      if (!locked || locked.status !== 'pending' || locked.transferId) return { outcome: 'busy' as const };
      const [sealed] = await tx.select().from(wallets).where(eq(wallets.id, wallet.id));
      const recorded = await recordTransfer(tx, {
        prepared,
        signer: accountFromKey(openWalletKey(sealed!)),
        purpose: 'fulfilment',
        authorization: { authority: { kind: 'system', job: 'fulfilment' }, destination: { class: 'item_contract' } },
        chargeId: charge.id,
        gasSponsor: { merchantId: charge.merchantId },
        senderLabel: 'Your service wallet',
      });
      await tx
        .update(fulfilments)
        .set({
          status: 'submitted',
          transferId: recorded.transfer.id,
          attempts: sql`${fulfilments.attempts} + 1`,
          recipient: bound.recipient,
          args: bound.display,
          failureReason: null,
        })
        .where(and(eq(fulfilments.id, fulfilmentId), inArray(fulfilments.status, fulfilmentMachine.leadingTo('submitted'))));
      await recordChargeEvent(tx, {
        chargeId: charge.id,
        fromStatus: charge.status,
        toStatus: charge.status,
        actor: 'system:fulfilment',
        type: 'charge.fulfilment_submitted',
        data: { fulfilmentId, ruleId: rule.id, function: rule.functionSignature, args: bound.display, txHash: recorded.transfer.txHash },
      });
      crashPoint('fulfilment.recording');
      return { outcome: 'submitted' as const, recorded };
    });
  } catch (error) {
    // The engine refused (gas caps, an empty gas tank): nothing was recorded; the merchant sees why and may retry.
    if (isAppError(error)) return { outcome: await failFulfilment(fulfilmentId, error.message, bound) };
    throw error;
  }
}

type Simulation = { kind: 'ok' } | { kind: 'reverts'; reason: string } | { kind: 'unreachable' };

async function simulate(
  client: PublicClient,
  input: { fn: (typeof fulfilmentRules.$inferSelect)['functionAbi']; args: unknown[]; from: Address; to: Address },
): Promise<Simulation> {
  try {
    await client.simulateContract({
      address: input.to,
      abi: [input.fn, ...KNOWN_ERRORS],
      functionName: input.fn.name,
      args: input.args,
      account: input.from,
    });
    return { kind: 'ok' };
  } catch (error) {
    const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (reverted instanceof ContractFunctionRevertedError) return { kind: 'reverts', reason: revertReason(reverted, input.from) };
    return { kind: 'unreachable' };
  }
}

function revertReason(error: ContractFunctionRevertedError, wallet: Address): string {
  const name = error.data?.errorName;
  if (name === 'AccessControlUnauthorizedAccount') {
    return `the service wallet ${wallet} lacks the role ${String(error.data?.args?.[1])} (grant it MINTER_ROLE)`;
  }
  if (name === 'OwnableUnauthorizedAccount') return `the service wallet ${wallet} is not the contract’s owner`;
  if (name) return `${name}(${(error.data?.args ?? []).map(String).join(', ')})`;
  return error.reason ?? 'the contract reverted without a reason';
}

/** The address that paid the charge: its confirmed payments' one sender (undefined when several, or unknown). */
async function payerOf(db: DbOrTx, chargeId: string): Promise<string | undefined> {
  const rows = await db
    .selectDistinct({ from: payments.fromAddress })
    .from(payments)
    .where(and(eq(payments.chargeId, chargeId), eq(payments.status, 'confirmed'), eq(payments.isLate, false)));
  return rows.length === 1 && rows[0]!.from ? rows[0]!.from : undefined;
}

async function postpone(fulfilmentId: string): Promise<StartOutcome> {
  await getDb()
    .update(fulfilments)
    .set({ nextAttemptAt: new Date(Date.now() + POSTPONE_MS) })
    .where(and(eq(fulfilments.id, fulfilmentId), eq(fulfilments.status, 'pending')));
  return 'postponed';
}

/** A pending fulfilment that cannot be made: failed with the reason, on the timeline and as `fulfilment.failed`. */
async function failFulfilment(
  fulfilmentId: string,
  reason: string,
  bound?: { recipient: string | null; display: string[] },
): Promise<StartOutcome> {
  return getDb().transaction(async (tx) => {
    const [row] = await tx
      .update(fulfilments)
      .set({
        status: 'failed',
        failureReason: reason.slice(0, 1000),
        attempts: sql`${fulfilments.attempts} + 1`,
        ...(bound ? { recipient: bound.recipient, args: bound.display } : {}),
      })
      .where(and(eq(fulfilments.id, fulfilmentId), inArray(fulfilments.status, fulfilmentMachine.from(['pending'], 'failed'))))
      .returning();
    if (!row) return 'busy';
    await recordFulfilmentEnd(tx, row, { status: 'failed', reason });
    return 'failed';
  });
}

/** The timeline entry and webhook of a fulfilment that ended (here, or in the engine's hook). */
export async function recordFulfilmentEnd(
  tx: DbOrTx,
  row: typeof fulfilments.$inferSelect,
  outcome: { status: 'succeeded' | 'failed'; reason?: string; txHash?: string },
): Promise<void> {
  if (!fulfilmentMachine.leadingTo(outcome.status).length) throw new Error('unreachable');
  const [charge] = await tx.select({ status: charges.status }).from(charges).where(eq(charges.id, row.chargeId));
  await recordChargeEvent(tx, {
    chargeId: row.chargeId,
    fromStatus: charge!.status,
    toStatus: charge!.status,
    actor: 'system:fulfilment',
    type: outcome.status === 'succeeded' ? 'charge.fulfilled' : 'charge.fulfilment_failed',
    data: {
      fulfilmentId: row.id,
      ruleId: row.ruleId,
      ...(outcome.txHash ? { txHash: outcome.txHash } : {}),
      ...(outcome.reason ? { reason: outcome.reason } : {}),
    },
  });
  await emitFulfilmentEvent(tx, {
    fulfilmentId: row.id,
    type: outcome.status === 'succeeded' ? 'fulfilment.succeeded' : 'fulfilment.failed',
  });
}
