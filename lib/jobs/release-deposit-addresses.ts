/**
 * Ends EVM deposit address leases whose charge is done with them and returns the addresses to their merchant's
 * pool (deposit_address_pool), where createCharge leases them again (docs/adr/0038-deposit-addresses-reused.md).
 * A lease is released only when ALL of these hold:
 *
 *  1. its charge is terminal (succeeded, failed, expired, canceled) and not flagged for review;
 *  2. its late-payment watch has passed (watch_until): nobody watches the address any more;
 *  3. nothing is left to sweep: the charge has no sweep due or stuck (sweep_schedule);
 *  4. no refund of the charge waits for its payer's claim, and no transfer from or to the address is in flight;
 *  5. the chain shows the address empty — the native coin, every registry token of the chain, the charge's token
 *     and any token a stray deposit left there — read over RPC before any transaction opens.
 *
 * 1–4 are checked again under the lease's and the charge's row locks (FOR UPDATE SKIP LOCKED: several workers
 * take disjoint leases; a lease another one holds is left for the next run), in the transaction that releases it
 * and pools the address: idempotent, released_at is set once. A lease that cannot be released is looked at
 * again later (release_check_at), backing off as it ages, so stuck leases never starve the queue.
 */
import { sql } from 'drizzle-orm';
import { getAddress, type PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, isChainName, type ChainName } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { log } from '@/lib/log';
import { balanceAt } from '@/lib/ledger/reconcile-chains';
import { IN_FLIGHT_STATUSES } from '@/lib/transactions/state';

/** Leases looked at per run. */
const RELEASE_BATCH = 100;
const READ_CONCURRENCY = 8;
/** A lease that could not be released is looked at again after max(this, its age past watch_until). */
const MIN_RECHECK_MS = 60 * 60_000;

export interface ReleaseResult {
  /** Leases looked at. */
  checked: number;
  released: number;
}

interface Candidate {
  id: string;
  chain: string;
  address: string;
  chargeId: string;
  token: string;
  strayTokens: string[] | null;
}

/**
 * The database conditions 1–4 on lease `d` joined with its charge `c` (the same text in the queue's read and
 * under the locks).
 */
function releasable(now: Date) {
  const inFlight = sql.join(
    IN_FLIGHT_STATUSES.map((status) => sql`${status}`),
    sql`, `,
  );
  return sql`d.released_at is null and d.family = 'evm' and d.watch_until <= ${now.toISOString()}::timestamptz
    and c.status in ('succeeded', 'failed', 'expired', 'canceled') and c.needs_review_since is null
    and not exists (select 1 from sweep_schedule s where s.charge_id = d.charge_id and (s.due_at is not null or s.stuck_at is not null))
    and not exists (select 1 from refunds r where r.charge_id = d.charge_id and r.claim_status = 'awaiting_claim')
    and not exists (select 1 from outbound_transfers t where t.chain = d.chain and t.status in (${inFlight})
                      and (t.from_address = d.address or t.to_address = d.address))`;
}

/** One run: up to `batch` leases due, released where every condition holds. */
export async function releaseDepositAddresses(
  options: { now?: Date; batch?: number; clientFor?: (chain: ChainName) => PublicClient | undefined } = {},
): Promise<ReleaseResult> {
  const now = options.now ?? new Date();
  const clientFor = options.clientFor ?? publicClientFor;
  const db = getDb();
  // The queue (deposit_addresses_release_idx): open EVM leases due a look, oldest first.
  const due = await db.execute<{ id: string }>(sql`
    select d.id from deposit_addresses d
     where d.released_at is null and d.family = 'evm' and coalesce(d.release_check_at, d.watch_until) <= ${now.toISOString()}::timestamptz
     order by coalesce(d.release_check_at, d.watch_until)
     limit ${options.batch ?? RELEASE_BATCH}`);
  if (due.length === 0) return { checked: 0, released: 0 };
  const ids = due.map((row) => row.id);
  const candidates = (await readCandidates(db, ids, now, false)).filter((c) => isChainName(c.chain));

  // Condition 5, on the chain, with no transaction open.
  const empty = new Set<string>();
  for (let i = 0; i < candidates.length; i += READ_CONCURRENCY)
    await Promise.all(
      candidates.slice(i, i + READ_CONCURRENCY).map(async (candidate) => {
        try {
          if (await isEmpty(clientFor(candidate.chain as ChainName), candidate)) empty.add(candidate.id);
        } catch (error) {
          log.warn('deposit address release: balance read failed', { chain: candidate.chain, address: candidate.address, error });
        }
      }),
    );

  let released = 0;
  if (empty.size > 0)
    released = await db.transaction(async (tx) => {
      const locked = await readCandidates(tx, [...empty], now, true);
      if (locked.length === 0) return 0;
      const lockedIds = locked.map((c) => c.id);
      const ended = await tx.execute<{ id: string }>(sql`
        update deposit_addresses set released_at = ${now.toISOString()}::timestamptz
         where id in (${sql.join(
           lockedIds.map((id) => sql`${id}`),
           sql`, `,
         )}) and released_at is null
        returning id`);
      if (ended.length === 0) return 0;
      await tx.execute(sql`
        insert into deposit_address_pool (chain, address, merchant_id, mode, derivation_index, last_deposit_address_id, free_since)
        select d.chain, d.address, c.merchant_id, c.mode, d.derivation_index, d.id, ${now.toISOString()}::timestamptz
          from deposit_addresses d join charges c on c.id = d.charge_id
         where d.id in (${sql.join(
           ended.map((row) => sql`${row.id}`),
           sql`, `,
         )})
        on conflict do nothing`);
      return ended.length;
    });

  // Not released (a condition failed, or another worker held it): look again later, backing off with age.
  await db.execute(sql`
    update deposit_addresses
       set release_check_at = ${now.toISOString()}::timestamptz + greatest(${MIN_RECHECK_MS}::bigint * interval '1 millisecond', ${now.toISOString()}::timestamptz - watch_until)
     where id in (${sql.join(
       ids.map((id) => sql`${id}`),
       sql`, `,
     )}) and released_at is null`);
  if (released > 0) log.info('deposit addresses returned to their pools', { released, checked: ids.length });
  return { checked: ids.length, released };
}

/** The leases among `ids` that meet conditions 1–4 (under their and their charges' row locks when `lock`). */
async function readCandidates(db: DbOrTx, ids: string[], now: Date, lock: boolean): Promise<Candidate[]> {
  const rows = await db.execute<{
    id: string;
    chain: string;
    address: string;
    charge_id: string;
    token_address: string;
    stray_tokens: string[] | null;
  }>(sql`
    select d.id, d.chain, d.address, d.charge_id, c.token_address,
           (select array_agg(distinct lower(sd.token_address)) from stray_deposits sd
             where sd.chain = d.chain and lower(sd.address) = lower(d.address)) as stray_tokens
      from deposit_addresses d join charges c on c.id = d.charge_id
     where d.id in (${sql.join(
       ids.map((id) => sql`${id}`),
       sql`, `,
     )}) and ${releasable(now)}
     ${lock ? sql`for update of d, c skip locked` : sql``}`);
  return rows.map((row) => ({
    id: row.id,
    chain: row.chain,
    address: row.address,
    chargeId: row.charge_id,
    token: row.token_address.toLowerCase(),
    strayTokens: row.stray_tokens,
  }));
}

/** Every token the address could hold that the books know of reads zero at the chain's latest block. */
async function isEmpty(client: PublicClient | undefined, candidate: Candidate): Promise<boolean> {
  if (!client) return false;
  const chain = candidate.chain as ChainName;
  const tokens = new Set([
    '0x0000000000000000000000000000000000000000',
    ...CHAINS[chain].tokens.map((t) => t.address.toLowerCase()),
    candidate.token,
    ...(candidate.strayTokens ?? []),
  ]);
  const block = await client.getBlockNumber({ cacheTime: 0 });
  const address = getAddress(candidate.address);
  for (const token of tokens) if ((await balanceAt(client, address, token, block)) !== 0n) return false;
  return true;
}
