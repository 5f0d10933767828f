/**
 * Writes a new charge with everything that belongs to it — its first timeline event, its deposit
 * address and its `charge.created` outbox event — in ONE statement: data-modifying CTEs are one
 * atomic statement in PostgreSQL (all rows or none, foreign keys checked at its end), so createCharge
 * needs no BEGIN/COMMIT and makes one round trip instead of six. On this machine a round trip costs
 * more CPU than everything else createCharge does (docs/development.md, benchmarks).
 *
 * The column lists follow lib/db/schema (charges, charge_events, deposit_addresses, webhook_events);
 * insert-charge.test.ts reads the rows back through drizzle, so a schema change that this statement
 * misses fails there.
 */
import { sql } from 'drizzle-orm';
import { getDb, getSql, type DbOrTx } from '@/lib/db/client';
import type { ChargeRow } from '@/lib/db/schema';

export interface NewChargeRows {
  charge: ChargeRow;
  event: { id: string; type: string; actor: string; data: Record<string, unknown> };
  depositAddress: {
    id: string;
    chain: string;
    family: 'evm' | 'solana';
    address: string;
    derivationIndex: number;
    reference: string | null;
    watchUntil: Date;
    /**
     * Lease a pooled address of the charge's merchant, chain and mode free since at most this time instead
     * (ADR 0038); null: always the fresh one above. The fresh index is then an unused gap (harmless).
     */
    reuseFreedBefore: Date | null;
  };
  outbox: { id: string; type: string; sequence: number; payload: unknown; createdAt: Date };
  /**
   * For a publishable key, the cap on open (pending) charges created with its merchant's publishable
   * keys in this mode; null for a secret key (rate-limited per key, never capped). Read from the
   * trigger-kept counter in the same statement: one primary-key lookup whatever the number of open
   * charges. Concurrent inserts may pass the cap by at most their number (an abuse cap, not an invariant).
   */
  openPublishableCap: number | null;
}

/** The insert stored nothing because the merchant has as many open publishable-key charges as allowed. */
export class OpenChargeCapReached extends Error {
  override name = 'OpenChargeCapReached';
  constructor() {
    super('open publishable charge cap reached');
  }
}

/** A template literal's parts, to run the same statement through postgres.js or drizzle. */
function statement(strings: TemplateStringsArray, ...values: unknown[]): { strings: TemplateStringsArray; values: unknown[] } {
  return { strings, values };
}

/**
 * The statement's text with `$1 … $n`, joined once per template: the text postgres.js would build from the
 * template on every call (3 KB of concatenation and its garbage per charge), so it prepares the same statement.
 */
const parameterisedTexts = new WeakMap<TemplateStringsArray, string>();
function parameterisedText(strings: TemplateStringsArray): string {
  let text = parameterisedTexts.get(strings);
  if (text === undefined) {
    text = strings.reduce((joined, part, index) => `${joined}$${index}${part}`);
    parameterisedTexts.set(strings, text);
  }
  return text;
}

/**
 * `db` is the database, or the caller's transaction (createCharge with an Idempotency-Key). On the
 * database the statement goes straight to postgres.js as fixed text, prepared once per connection; in a
 * transaction it goes through drizzle's, on that transaction.
 */
export async function insertCharge(db: DbOrTx, rows: NewChargeRows): Promise<void> {
  const { strings, values } = insertChargeStatement(rows);
  const inserted =
    db === getDb()
      ? await getSql().unsafe(parameterisedText(strings), values as never[], { prepare: true })
      : await db.execute(sql(strings, ...values));
  const [row] = inserted as unknown as { id: string | null; open_publishable: number }[];
  if (row?.id) return;
  if (row && rows.openPublishableCap !== null && row.open_publishable >= rows.openPublishableCap) throw new OpenChargeCapReached();
  throw new Error(`charge ${rows.charge.id} was not inserted`);
}

function insertChargeStatement(rows: NewChargeRows) {
  const { charge, event, depositAddress, outbox, openPublishableCap } = rows;
  // Parameters go to postgres.js untyped (no drizzle column mapping here): dates as ISO text, amounts
  // as decimal text, JSON as text, each cast to its column's type. The publishable open count is the
  // trigger-kept counter (one primary-key row), read only for publishable keys.
  return statement`
    with open_publishable as (
      select coalesce((
        select publishable_open from open_charge_counts
        where ${openPublishableCap}::int is not null and merchant_id = ${charge.merchantId}::text and mode = ${charge.mode}::api_key_mode
      ), 0) as n
    ), new_charge as (
      insert into charges (
        id, merchant_id, api_key_id, via_publishable_key, mode, chain, token_symbol, token_address, token_decimals, total_base_units,
        items, destination, to_address, is_direct_transfer, success_url, cancel_url, metadata, pricing, status, expires_at,
        created_at, updated_at
      )
      select
        ${charge.id}::text, ${charge.merchantId}::text, ${charge.apiKeyId}::text, ${charge.viaPublishableKey}::boolean, ${charge.mode}::api_key_mode, ${charge.chain}::text, ${charge.tokenSymbol}::text,
        ${charge.tokenAddress}::text, ${charge.tokenDecimals}::integer, ${charge.totalBaseUnits.toString()}::numeric,
        ${JSON.stringify(charge.items)}::jsonb, ${charge.destination}::charge_destination, ${charge.toAddress}::text, ${charge.isDirectTransfer}::boolean,
        ${charge.successUrl}::text, ${charge.cancelUrl}::text, ${JSON.stringify(charge.metadata)}::jsonb,
        ${charge.pricing === null ? null : JSON.stringify(charge.pricing)}::jsonb, ${charge.status}::charge_status, ${charge.expiresAt.toISOString()}::timestamptz,
        ${charge.createdAt.toISOString()}::timestamptz, ${charge.updatedAt.toISOString()}::timestamptz
      where ${openPublishableCap}::int is null or (select n from open_publishable) < ${openPublishableCap}::int
      returning id
    ), timeline as (
      insert into charge_events (id, charge_id, type, from_status, to_status, actor, data, created_at)
      select ${event.id}::text, id, ${event.type}::text, null, ${charge.status}::charge_status, ${event.actor}::text,
        ${JSON.stringify(event.data)}::jsonb, ${charge.createdAt.toISOString()}::timestamptz
      from new_charge
    ), pooled as (
      -- The merchant's longest-free pooled address (ADR 0038): one index range, rows other inserts hold skipped;
      -- only when the charge is inserted (a capped insert leaves the pool as it was).
      delete from deposit_address_pool
      where (chain, address) = (
          select chain, address from deposit_address_pool
          where merchant_id = ${charge.merchantId}::text and mode = ${charge.mode}::api_key_mode and chain = ${depositAddress.chain}::text
            and free_since <= ${depositAddress.reuseFreedBefore?.toISOString() ?? null}::timestamptz
          order by free_since
          limit 1
          for update skip locked
        )
        and exists (select 1 from new_charge)
      returning address, derivation_index
    ), deposit as (
      insert into deposit_addresses (id, charge_id, chain, family, address, derivation_index, reference, watch_until, created_at)
      select ${depositAddress.id}::text, id, ${depositAddress.chain}::text, ${depositAddress.family}::wallet_family,
        coalesce((select address from pooled), ${depositAddress.address}::text),
        coalesce((select derivation_index from pooled), ${depositAddress.derivationIndex}::integer),
        ${depositAddress.reference}::text, ${depositAddress.watchUntil.toISOString()}::timestamptz, ${charge.createdAt.toISOString()}::timestamptz
      from new_charge
    ), outbox as (
      insert into webhook_events (id, merchant_id, mode, type, charge_id, sequence, payload, created_at)
      select ${outbox.id}::text, ${charge.merchantId}::text, ${charge.mode}::api_key_mode, ${outbox.type}::text, id, ${outbox.sequence}::integer,
        ${JSON.stringify(outbox.payload)}::json, ${outbox.createdAt.toISOString()}::timestamptz
      from new_charge
    )
    select (select id from new_charge) as id, (select n from open_publishable) as open_publishable
  `;
}
