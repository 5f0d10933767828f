/**
 * Funds waiting at deposit addresses for the merchant to refund: payments into charges that did not
 * succeed (expired, canceled, failed underpaid) and late payments into any charge. The sweep never moves
 * them (they are not the merchant's to keep); the dashboard lists them with a link to the charge's Refund.
 * On a succeeded charge only late payments are stranded, and only the late part of its deposit refunds
 * (`refunds.late_base_units`) refunded them; elsewhere every refund from the deposit (or a claim link
 * waiting for its payer) does.
 */
import { sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import type { ApiKeyMode } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';

export interface StrandedFunds {
  chargeId: string;
  chargeStatus: string;
  chain: string;
  symbol: string;
  /** Exact decimal text. */
  amount: string;
  reason: 'late_payment' | 'charge_not_succeeded';
  lastPaymentAt: Date;
}

/** The merchant's charges (of one mode) with funds awaiting refund, most recent payment first. */
export async function listStrandedFunds(input: { merchantId: string; mode: ApiKeyMode; limit?: number }): Promise<StrandedFunds[]> {
  const rows = await getDb().execute<{
    charge_id: string;
    status: string;
    chain: string;
    token_symbol: string;
    token_decimals: number;
    stranded: string;
    late_only: boolean;
    last_payment_at: Date | string;
  }>(sql`
    select c.id as charge_id, c.status, c.chain, c.token_symbol, c.token_decimals,
           (sum(p.amount_base_units) - coalesce((
              select sum(case when c.status = 'succeeded' then r.late_base_units else r.amount_base_units end)
                from refunds r
                left join outbound_transfers t on t.id = r.transfer_id
               where r.charge_id = c.id
                 and (r.source = 'deposit_address' or (r.source is null and c.status <> 'succeeded'))
                 and (t.status <> 'failed' or (t.id is null and r.claim_status = 'awaiting_claim'))), 0))::text as stranded,
           c.status = 'succeeded' as late_only,
           max(p.created_at) as last_payment_at
      from charges c
      join payments p on p.charge_id = c.id and p.status = 'confirmed'
     where c.merchant_id = ${input.merchantId} and c.mode = ${input.mode}
       and (p.is_late or c.status in ('expired', 'canceled', 'failed'))
     group by c.id
    having sum(p.amount_base_units) - coalesce((
              select sum(case when c.status = 'succeeded' then r.late_base_units else r.amount_base_units end)
                from refunds r
                left join outbound_transfers t on t.id = r.transfer_id
               where r.charge_id = c.id
                 and (r.source = 'deposit_address' or (r.source is null and c.status <> 'succeeded'))
                 and (t.status <> 'failed' or (t.id is null and r.claim_status = 'awaiting_claim'))), 0) > 0
     order by max(p.created_at) desc
     limit ${input.limit ?? 50}`);
  return rows.map((row) => ({
    chargeId: row.charge_id,
    chargeStatus: row.status,
    chain: row.chain,
    symbol: row.token_symbol,
    amount: formatAmount(BigInt(row.stranded), row.token_decimals),
    reason: row.late_only ? 'late_payment' : 'charge_not_succeeded',
    lastPaymentAt: new Date(row.last_payment_at),
  }));
}
