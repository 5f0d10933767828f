/**
 * The ledger: every movement of value the service knows of, as signed entries per (address, token), read
 * from the records that already hold them — never written twice (docs/adr/0017-ledger-from-the-records.md):
 *
 *   received   + a payment into a charge's deposit address (the charge watcher's `payments`)
 *   received   + a transfer into a user's or merchant's service wallet (the wallet indexer's rows), sweeps
 *                and refunds to Chargeport wallets included; the gas tank's funding (same indexer)
 *   stray      + a token a deposit address received that its charge is not in (stray_deposits, found by
 *                the slow pass over every deposit address)
 *   gas_topup  + the gas tank's top-up into a deposit address or a wallet (the scanners skip those)
 *   <purpose>  − what an outbound transfer moved out of its sender once in a block: balance_payment, sweep,
 *                withdrawal, wallet_send, refund, gas_topup, recovery, swap (the input it took), swap_approve (nothing)
 *   gas_fee    − what a transaction in a block cost its sender (gasUsed × effectiveGasPrice), reverted or not
 *
 * Entries are placed by block, so the expected balance of an address at block B compares exactly with its
 * balance on chain at B. EVM chains; Solana clusters (deposits, service wallets, the tank): ./reconcile-solana.ts.
 */
import { sql } from 'drizzle-orm';
import type { ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';

export interface ExpectedBalance {
  /** Lower-case address. */
  address: string;
  /** Lower-case token address (the zero address for the native coin). */
  token: string;
  expected: bigint;
  /** Charges whose entries touch this balance (deposit addresses: their charge). */
  chargeIds: string[];
  kinds: string[];
}

const NATIVE = '0x0000000000000000000000000000000000000000';

/** Every (address, token) the ledger has entries for on `chain` (or only those of `addresses`, lower-case), summed up to `atBlock`. */
export async function expectedBalances(
  db: DbOrTx,
  input: { chain: ChainName; atBlock: bigint; addresses?: string[] },
): Promise<ExpectedBalance[]> {
  const { chain, atBlock } = input;
  if (input.addresses?.length === 0) return [];
  const only = input.addresses
    ? sql`where address in (${sql.join(
        input.addresses.map((address) => sql`${address}`),
        sql`, `,
      )})`
    : sql``;
  const rows = await db.execute<{ address: string; token: string; expected: string; charge_ids: string[]; kinds: string[] }>(sql`
    with entries as (
      select lower(p.to_address) as address, lower(p.token_address) as token, p.amount_base_units as delta,
             'received' as kind, p.charge_id
        from payments p
       where p.chain = ${chain} and p.status <> 'dropped' and p.block_number <= ${atBlock}
      union all
      select lower(w.to_address), lower(w.token_address), w.amount_base_units, 'received', null
        from wallet_incoming_transfers w
       where w.chain = ${chain} and w.status <> 'dropped' and w.block_number <= ${atBlock}
      union all
      select lower(d.address), d.token_address, d.amount_base_units, 'stray', d.charge_id
        from stray_deposits d
       where d.chain = ${chain} and d.block_number <= ${atBlock}
      union all
      select lower(t.to_address), lower(t.token_address), t.amount_base_units, 'gas_topup', t.charge_id
        from outbound_transfers t
       where t.chain = ${chain} and t.purpose = 'gas_topup' and t.status in ('included', 'confirmed')
         and t.included_block_number <= ${atBlock}
      union all
      select lower(t.from_address), lower(t.token_address),
             -(case t.purpose when 'swap' then coalesce(s.amount_in, t.amount_base_units)
                              when 'swap_approve' then 0
                              else t.amount_base_units end),
             t.purpose::text, t.charge_id
        from outbound_transfers t
        left join swap_executions s on s.swap_transfer_id = t.id
       where t.chain = ${chain} and t.status in ('included', 'confirmed')
         and (t.included_block_number <= ${atBlock} or (t.included_block_number is null and t.status = 'confirmed'))
      union all
      -- The fee is the sender's of the transaction: the relayer's for a relayed transfer (ADR 0035).
      select lower(coalesce(t.relayer_address, t.from_address)), ${NATIVE}, -t.gas_fee_base_units, 'gas_fee', t.charge_id
        from outbound_transfers t
       where t.chain = ${chain} and t.gas_fee_base_units is not null and t.included_block_number <= ${atBlock}
    )
    -- Without the nulls: the driver reads a text[] holding NULL as the string "NULL" (reported as a charge).
    select address, token, sum(delta)::text as expected, array_remove(array_agg(distinct charge_id), null) as charge_ids,
           array_agg(distinct kind) as kinds
      from entries
      ${only}
     group by address, token`);
  return rows.map((row) => ({
    address: row.address,
    token: row.token,
    expected: BigInt(row.expected),
    chargeIds: row.charge_ids,
    kinds: row.kinds,
  }));
}
