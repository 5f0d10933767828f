/** A fulfilment as the dashboard, the API and `fulfilment.*` webhooks show it. */
import { and, asc, eq } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import {
  fulfilmentRules,
  fulfilments,
  merchantContracts,
  outboundTransfers,
  type FulfilmentRow,
  type FulfilmentRuleRow,
  type MerchantContractRow,
  type OutboundTransferRow,
} from '@/lib/db/schema';
import type { FulfilmentResource } from './schemas';

function serializeFulfilment(
  row: FulfilmentRow,
  rule: Pick<FulfilmentRuleRow, 'functionSignature'>,
  contract: Pick<MerchantContractRow, 'chain' | 'address'>,
  transfer: Pick<OutboundTransferRow, 'txHash' | 'status'> | null,
): FulfilmentResource {
  return {
    id: row.id,
    object: 'fulfilment',
    chargeId: row.chargeId,
    ruleId: row.ruleId,
    mode: row.mode,
    status: row.status,
    chain: contract.chain,
    contractAddress: contract.address,
    function: rule.functionSignature,
    recipient: row.recipient,
    args: row.args,
    transactionHash: transfer && transfer.status !== 'signed' ? transfer.txHash : null,
    failureReason: row.failureReason,
    attempts: row.attempts,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

const columns = { fulfilment: fulfilments, rule: fulfilmentRules, contract: merchantContracts, transfer: outboundTransfers };

/** One fulfilment with what it shows (rule, contract, current transfer). */
export async function loadFulfilment(db: DbOrTx, fulfilmentId: string): Promise<FulfilmentResource | undefined> {
  const [row] = await db
    .select(columns)
    .from(fulfilments)
    .innerJoin(fulfilmentRules, eq(fulfilmentRules.id, fulfilments.ruleId))
    .innerJoin(merchantContracts, eq(merchantContracts.id, fulfilmentRules.contractId))
    .leftJoin(outboundTransfers, eq(outboundTransfers.id, fulfilments.transferId))
    .where(eq(fulfilments.id, fulfilmentId));
  return row ? serializeFulfilment(row.fulfilment, row.rule, row.contract, row.transfer) : undefined;
}

/** A charge's fulfilments, oldest first, scoped by merchant and mode. */
export async function listChargeFulfilments(input: { merchantId: string; mode: string; chargeId: string }): Promise<FulfilmentResource[]> {
  const rows = await getDb()
    .select(columns)
    .from(fulfilments)
    .innerJoin(fulfilmentRules, eq(fulfilmentRules.id, fulfilments.ruleId))
    .innerJoin(merchantContracts, eq(merchantContracts.id, fulfilmentRules.contractId))
    .leftJoin(outboundTransfers, eq(outboundTransfers.id, fulfilments.transferId))
    .where(
      and(
        eq(fulfilments.chargeId, input.chargeId),
        eq(fulfilments.merchantId, input.merchantId),
        eq(fulfilments.mode, input.mode as FulfilmentRow['mode']),
      ),
    )
    .orderBy(asc(fulfilments.createdAt));
  return rows.map((row) => serializeFulfilment(row.fulfilment, row.rule, row.contract, row.transfer));
}
