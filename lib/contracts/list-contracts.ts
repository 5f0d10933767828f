/** The Contracts tab's data: the merchant's service wallet, its registered contracts (with whether the wallet may mint) and rules. */
import { and, asc, eq } from 'drizzle-orm';
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { fulfilmentRules, merchantContracts, type ApiKeyMode, type FulfilmentRuleRow, type MerchantContractRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { notifyOwners } from '@/lib/merchants/notify-owners';
import { authorizeMember } from '@/lib/merchants/permissions';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { readMinterStatus, type MinterStatus } from './minter-status';

export interface ContractsOverview {
  serviceWallet: string;
  contracts: (MerchantContractRow & { minter: MinterStatus; rules: FulfilmentRuleRow[] })[];
}

export async function listContracts(input: { userId: string; merchantId: string; mode: ApiKeyMode }): Promise<ContractsOverview> {
  await authorizeMember(getDb(), { ...input, permission: 'dashboard.view' });
  const serviceWallet = (await ensureMerchantWallets(getDb(), input.merchantId)).find((w) => w.family === 'evm')!.address;
  const scope = (table: typeof merchantContracts | typeof fulfilmentRules) =>
    and(eq(table.merchantId, input.merchantId), eq(table.mode, input.mode));
  const [contracts, rules] = await Promise.all([
    getDb().select().from(merchantContracts).where(scope(merchantContracts)).orderBy(asc(merchantContracts.createdAt)),
    getDb().select().from(fulfilmentRules).where(scope(fulfilmentRules)).orderBy(asc(fulfilmentRules.createdAt)),
  ]);
  return {
    serviceWallet,
    contracts: await Promise.all(
      contracts.map(async (contract) => ({
        ...contract,
        minter: await readMinterStatus(contract, serviceWallet),
        rules: rules.filter((rule) => rule.contractId === contract.id),
      })),
    ),
  };
}

/**
 * Pauses or resumes a rule (a paused rule arms no fulfilment for charges that succeed meanwhile). A change
 * to a rule like its creation: an owner, with step-up; every owner is e-mailed.
 */
export async function setRuleEnabled(input: {
  userId: string;
  merchantId: string;
  mode: ApiKeyMode;
  ip?: string | null;
  stepUp?: StepUpProof;
  ruleId: string;
  enabled: boolean;
}): Promise<void> {
  const rule = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'contracts.manage' });
    await verifyStepUp({
      userId: input.userId,
      proof: input.stepUp ?? {},
      mode: input.mode,
      tx,
      attempt: { action: 'fulfilment_rule_change', merchantId: input.merchantId, mode: input.mode, ip: input.ip },
    });
    const [row] = await tx
      .update(fulfilmentRules)
      .set({ enabled: input.enabled })
      .where(
        and(eq(fulfilmentRules.id, input.ruleId), eq(fulfilmentRules.merchantId, input.merchantId), eq(fulfilmentRules.mode, input.mode)),
      )
      .returning({ id: fulfilmentRules.id, functionSignature: fulfilmentRules.functionSignature });
    if (!row) throw new AppError('not_found', `No fulfilment rule ${input.ruleId}.`);
    await recordAudit(tx, {
      actor,
      action: input.enabled ? 'fulfilment_rule.enable' : 'fulfilment_rule.disable',
      targetId: row.id,
      mode: input.mode,
      ip: input.ip,
    });
    return row;
  });
  await notifyOwners({
    merchantId: input.merchantId,
    actorUserId: input.userId,
    ip: input.ip,
    subject: `fulfilment rule ${input.enabled ? 'resumed' : 'paused'}: ${rule.functionSignature} (${input.mode} mode)`,
    text: `The fulfilment rule ${rule.id} (${rule.functionSignature}) was ${input.enabled ? 'resumed: it fires again on charges that succeed from now on' : 'paused: it fires on no charge until resumed'} (${input.mode} mode).`,
  });
}

/** The rules of a merchant's mode, for the charge page's "Fulfil now" (the member was authorised by the page). */
export async function listChargeRules(input: { merchantId: string; mode: ApiKeyMode }): Promise<{ id: string; label: string }[]> {
  const rows = await getDb()
    .select({
      id: fulfilmentRules.id,
      fn: fulfilmentRules.functionSignature,
      address: merchantContracts.address,
      chain: merchantContracts.chain,
    })
    .from(fulfilmentRules)
    .innerJoin(merchantContracts, eq(merchantContracts.id, fulfilmentRules.contractId))
    .where(and(eq(fulfilmentRules.merchantId, input.merchantId), eq(fulfilmentRules.mode, input.mode)))
    .orderBy(asc(fulfilmentRules.createdAt));
  return rows.map((row) => ({ id: row.id, label: `${row.fn} on ${row.chain} ${row.address}` }));
}
