/**
 * The dashboard's Retry on a failed fulfilment, and "Fulfil now" for a succeeded charge a rule did not
 * cover (it succeeded before the rule existed, or lacked a metadata key then). Both only ever add a new
 * attempt where nothing was minted: a retry needs the fulfilment `failed` (its call reverted or was never
 * made), and (charge, rule) stays unique. The job then starts it; here it is started at once, through
 * the same checks as every fulfilment (start-fulfilments.ts: no token-moving function, no token
 * contract, a price list met by charges of publishable keys). Members with `fulfilments.run` (owner,
 * admin, developer) may press them: they only carry out a rule an owner confirmed.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { getDb } from '@/lib/db/client';
import { charges, fulfilmentRules, fulfilments, merchantContracts, type ApiKeyMode } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { authorizeMember } from '@/lib/merchants/permissions';
import { refuseTokenMovingFunction } from './create-rule';
import { startFulfilment, type StartOutcome } from './start-fulfilments';
import { fulfilmentMachine } from './state';

interface MemberInput {
  userId: string;
  merchantId: string;
  mode: ApiKeyMode;
  ip?: string | null;
}

export async function retryFulfilment(input: MemberInput & { fulfilmentId: string }): Promise<StartOutcome> {
  await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'fulfilments.run' });
    const [row] = await tx
      .select()
      .from(fulfilments)
      .where(and(eq(fulfilments.id, input.fulfilmentId), eq(fulfilments.merchantId, input.merchantId), eq(fulfilments.mode, input.mode)))
      .for('update');
    if (!row) throw new AppError('not_found', `No fulfilment ${input.fulfilmentId}.`);
    if (row.status !== 'failed') {
      throw new AppError(
        'fulfilment_not_retryable',
        row.status === 'succeeded'
          ? 'This fulfilment succeeded: the item was delivered. Retrying would deliver it twice.'
          : 'This fulfilment is in progress; wait for its outcome.',
      );
    }
    await tx
      .update(fulfilments)
      .set({ status: 'pending', transferId: null, failureReason: null, nextAttemptAt: new Date() })
      .where(and(eq(fulfilments.id, row.id), inArray(fulfilments.status, fulfilmentMachine.leadingTo('pending'))));
    await recordChargeEvent(tx, {
      chargeId: row.chargeId,
      fromStatus: 'succeeded',
      toStatus: 'succeeded',
      actor: `member:${input.userId}`,
      type: 'charge.fulfilment_retried',
      data: { fulfilmentId: row.id, previousFailure: row.failureReason },
    });
    await recordAudit(tx, {
      actor,
      action: 'fulfilment.retry',
      targetId: row.id,
      mode: input.mode,
      data: { chargeId: row.chargeId },
      ip: input.ip,
    });
  });
  return startFulfilment(input.fulfilmentId);
}

export async function fulfilChargeNow(
  input: MemberInput & { chargeId: string; ruleId: string },
): Promise<{ fulfilmentId: string; outcome: StartOutcome }> {
  const fulfilmentId = newId('fulfilment');
  await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'fulfilments.run' });
    const [charge] = await tx
      .select()
      .from(charges)
      .where(and(eq(charges.id, input.chargeId), eq(charges.merchantId, input.merchantId), eq(charges.mode, input.mode)));
    if (!charge) throw new AppError('not_found', `No charge ${input.chargeId}.`, { param: 'chargeId' });
    if (charge.status !== 'succeeded') {
      throw new AppError('invalid_request', `This charge is ${charge.status}: only succeeded charges are fulfilled.`, {
        param: 'chargeId',
      });
    }
    const [rule] = await tx
      .select({ rule: fulfilmentRules, contract: merchantContracts })
      .from(fulfilmentRules)
      .innerJoin(merchantContracts, eq(merchantContracts.id, fulfilmentRules.contractId))
      .where(
        and(eq(fulfilmentRules.id, input.ruleId), eq(fulfilmentRules.merchantId, input.merchantId), eq(fulfilmentRules.mode, input.mode)),
      );
    if (!rule) throw new AppError('not_found', `No fulfilment rule ${input.ruleId} in this mode.`, { param: 'ruleId' });
    // A rule saved before token-moving functions were refused is refused here, before anything is armed.
    refuseTokenMovingFunction(rule.rule.functionAbi);
    if (rule.contract.chain !== charge.chain) {
      throw new AppError(
        'contract_chain_mismatch',
        `The rule’s contract is on ${CHAINS[rule.contract.chain as ChainName].displayName}, and this charge was paid on ${CHAINS[charge.chain as ChainName].displayName}: a rule fulfils charges of its contract’s network only.`,
        { param: 'ruleId' },
      );
    }
    const [inserted] = await tx
      .insert(fulfilments)
      .values({ id: fulfilmentId, chargeId: charge.id, ruleId: rule.rule.id, merchantId: input.merchantId, mode: input.mode })
      .onConflictDoNothing()
      .returning({ id: fulfilments.id });
    if (!inserted) {
      throw new AppError('fulfilment_exists', 'This rule already fulfils this charge (see its fulfilments; retry a failed one).', {
        param: 'ruleId',
      });
    }
    await recordAudit(tx, {
      actor,
      action: 'fulfilment.start',
      targetId: fulfilmentId,
      mode: input.mode,
      data: { chargeId: charge.id, ruleId: rule.rule.id },
      ip: input.ip,
    });
  });
  return { fulfilmentId, outcome: await startFulfilment(fulfilmentId) };
}
