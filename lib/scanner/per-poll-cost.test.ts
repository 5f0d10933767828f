import { beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { TransactionSql } from 'postgres';
import { getDb, getSql } from '@/lib/db/client';
import { depositAddresses } from '@/lib/db/schema';
import { openPayments } from '@/lib/payments/poll-chain';
import { openIncomingTransfers, serviceWalletsLookup } from '@/lib/wallets/poll-incoming-transfers';
import { createTestCharge, newMerchant, usdcCharge } from '@/test/fixtures';
import { eq } from 'drizzle-orm';

// What a poll reads must not grow with history. Each query the scanner runs every poll is run here under
// EXPLAIN ANALYZE against a table holding 10× more settled history: the rows it reads stay the open ones.
// DFK_TESTNET: no other test file records transfers on it.
const CHAIN = 'DFK_TESTNET';
const OPEN = 12;

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

type Query = { toSQL(): { sql: string; params: unknown[] } };

/**
 * Runs `body` in a transaction that is rolled back: the history it adds (and the statistics ANALYZE takes
 * of it) never reach the other test files sharing the database.
 */
async function withThrowawayHistory(body: (sql: TransactionSql) => Promise<void>): Promise<void> {
  const rollback = new Error('rollback');
  await getSql()
    .begin(async (sql) => {
      await body(sql);
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
}

/** Rows the query's scans read from its tables (returned or filtered out), and the indexes they used. */
async function rowsRead(sql: TransactionSql, query: Query): Promise<{ rows: number; indexes: string[] }> {
  const statement = query.toSQL();
  const [result] = await sql.unsafe(`explain (analyze, format json) ${statement.sql}`, statement.params as never[]);
  const plan = (result as unknown as { 'QUERY PLAN': { Plan: PlanNode }[] })['QUERY PLAN'][0]!.Plan;
  let rows = 0;
  const indexes: string[] = [];
  // A bitmap heap scan reads the rows its bitmap index scan found: count them once, at the heap.
  const visit = (node: PlanNode, underHeap: boolean) => {
    if (node['Node Type'].includes('Scan') && !underHeap) {
      rows +=
        (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0)) * node['Actual Loops'];
    }
    if (node['Index Name']) indexes.push(node['Index Name']);
    for (const child of node.Plans ?? []) visit(child, underHeap || node['Node Type'] === 'Bitmap Heap Scan');
  };
  visit(plan, false);
  return { rows, indexes };
}

let chargeId: string;
let seq = 0;

async function addHistory(
  sql: TransactionSql,
  table: 'payments' | 'wallet_incoming_transfers',
  count: number,
  status: 'pending' | 'confirmed',
) {
  const from = seq;
  seq += count;
  if (table === 'payments') {
    await sql`insert into payments (id, charge_id, chain, tx_hash, log_index, from_address, to_address, token_address,
                amount_base_units, block_number, block_hash, status)
              select 'pay_cost_' || g, ${chargeId}, ${CHAIN}, '0x' || md5(g::text), 0, '0x', '0x', '0x', 1, g, '0x', ${status}
              from generate_series(${from}::int, ${from + count - 1}::int) g`;
  } else {
    await sql`insert into wallet_incoming_transfers (id, chain, tx_hash, log_index, from_address, to_address, token_address,
                amount_base_units, block_number, block_hash, block_time, status)
              select 'win_cost_' || g, ${CHAIN}, '0x' || md5(g::text), 0, '0x', '0xcost', '0x', 1, g, '0x', now(), ${status}::incoming_transfer_status
              from generate_series(${from}::int, ${from + count - 1}::int) g`;
  }
  await sql.unsafe(`analyze ${table}`);
}

beforeAll(async () => {
  const merchant = await newMerchant();
  ({ chargeId } = await createTestCharge({ apiKey: merchant.liveKey, body: usdcCharge() }));
});

describe('per-poll cost does not grow with history', () => {
  it("the charge watcher's re-check reads only pending payments (payments_pending_idx), with 10× more confirmed ones", async () => {
    await withThrowawayHistory(async (sql) => {
      await addHistory(sql, 'payments', OPEN, 'pending');
      await addHistory(sql, 'payments', 2_000, 'confirmed');
      const before = await rowsRead(sql, openPayments(getDb(), CHAIN));
      await addHistory(sql, 'payments', 20_000, 'confirmed');
      const after = await rowsRead(sql, openPayments(getDb(), CHAIN));
      expect(before).toEqual({ rows: OPEN, indexes: ['payments_pending_idx'] });
      expect(after).toEqual(before);
    });
  });

  it("the wallet indexer's re-check reads only pending transfers (wallet_incoming_transfers_pending_idx), with 10× more confirmed ones", async () => {
    await withThrowawayHistory(async (sql) => {
      await addHistory(sql, 'wallet_incoming_transfers', OPEN, 'pending');
      await addHistory(sql, 'wallet_incoming_transfers', 2_000, 'confirmed');
      const before = await rowsRead(sql, openIncomingTransfers(getDb(), CHAIN));
      await addHistory(sql, 'wallet_incoming_transfers', 20_000, 'confirmed');
      const after = await rowsRead(sql, openIncomingTransfers(getDb(), CHAIN));
      expect(before).toEqual({ rows: OPEN, indexes: ['wallet_incoming_transfers_pending_idx'] });
      expect(after).toEqual(before);
    });
  });

  it("the wallet indexer looks the window's recipients up by index: it reads the wallets found, not every wallet", async () => {
    const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
    await withThrowawayHistory(async (sql) => {
      // 5,000 users with a service wallet each.
      await sql`insert into users (id, sign_up_method) select 'usr_cost_' || g, 'email' from generate_series(1, 5000) g`;
      await sql`insert into wallets (id, user_id, family, address, sealed_private_key, sealed_data_key, master_key_id)
                select 'wal_cost_' || g, 'usr_cost_' || g, 'evm', '0x' || substr(md5('cost' || g), 1, 40), 'x', 'x', 'test'
                from generate_series(1, 5000) g`;
      await sql`analyze wallets`;
      const found = [1, 2, 3].map((g) => `0x${md5(`cost${g}`).slice(0, 40)}`);
      // A window's recipients: three service wallets among 500 strangers and a deposit address (not a user's wallet).
      const strangers = Array.from({ length: 500 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
      const lookup = serviceWalletsLookup(getDb(), [...strangers, found[0]!, deposit!.address, found[1]!, found[2]!]);
      const statement = lookup.toSQL();
      const rows = await sql.unsafe<{ address: string }[]>(statement.sql, statement.params as never[]);
      expect(rows.map((row) => row.address).sort()).toEqual([...found].sort());
      expect(await rowsRead(sql, lookup)).toEqual({ rows: 3, indexes: ['wallets_address_idx'] });
    });
  });
});
