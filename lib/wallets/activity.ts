/**
 * The wallet's Activity tab: everything that moved money in or out of a user's service wallets, newest
 * first, in pages.
 *
 *  - On-ramp orders the user placed, or that deliver to one of the user's wallets (shown from the moment
 *    they are created, with their status; the delivery transaction once known).
 *  - Transfers received (wallet_incoming_transfers, indexed from the chains). A received transfer that
 *    is an on-ramp order's delivery is shown once, as the order. One re-organised out of the chain for
 *    good shows as failed ("Dropped by the network"): the user may have seen it confirming.
 *  - Transfers sent: sends to other addresses (wallet_send) and charge payments from the balance
 *    (balance_payment, with the merchant's name and the charge).
 *
 * Pages are cut on (time, id) with the cursor carrying the time at microsecond precision, so rows of the
 * same instant are neither lost nor repeated. Each source is read newest first up to the page size
 * through its own index, then merged. Amounts are exact decimal text.
 */
import { sql, type SQL } from 'drizzle-orm';
import { explorerLink } from '@/lib/chains/explorer-link';
import { CHAINS, findToken, isChainName, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { listWallets } from './list-wallets';

const ACTIVITY_PAGE_SIZE = 20;

type ActivityKind = 'onramp' | 'received' | 'sent' | 'charge_payment';
export type ActivityStatus = 'pending' | 'completed' | 'failed' | 'expired';

export interface ActivityItem {
  id: string;
  kind: ActivityKind;
  occurredAt: Date;
  chain: string;
  chainDisplayName: string;
  /** Exact decimal text with the token's symbol; base units when the token is not in the registry. */
  amount: string;
  tokenSymbol: string;
  status: ActivityStatus;
  statusLabel: string;
  /** One line saying what it was ("Received from 0x…", "Paid Demo Game Studio"). */
  title: string;
  txHash: string | null;
  /** The block explorer's page of the transaction; none on local development chains. */
  explorerUrl?: string;
  /** The other side: sender of a received transfer, recipient of a sent one. */
  counterparty?: string;
  /** The on-ramp order's page, or the paid charge's checkout page. */
  href?: string;
  chargeId?: string;
  merchantName?: string;
}

const CURSOR_PATTERN = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)~([A-Za-z0-9_-]{1,100})$/;

interface ActivityRow extends Record<string, unknown> {
  kind: ActivityKind;
  id: string;
  occurred: string;
  chain: string;
  token_address: string;
  token_symbol: string | null;
  token_decimals: number | null;
  amount: string;
  status: string;
  tx_hash: string | null;
  counterparty: string | null;
  detail: string | null;
  charge_id: string | null;
  merchant_name: string | null;
}

export async function listWalletActivity(input: {
  userId: string;
  cursor?: string;
  limit?: number;
}): Promise<{ items: ActivityItem[]; nextCursor?: string }> {
  const limit = input.limit ?? ACTIVITY_PAGE_SIZE;
  let after: { time: string; id: string } | undefined;
  if (input.cursor !== undefined) {
    const match = CURSOR_PATTERN.exec(input.cursor);
    if (!match)
      throw new AppError('invalid_request', 'This page link is not valid: start again from the newest activity.', { param: 'after' });
    after = { time: match[1]!, id: match[2]! };
  }
  const wallets = await listWallets(input.userId);
  // EVM addresses are stored checksummed by us; other writers may have lower-cased them.
  const addresses = [...new Set(wallets.flatMap((w) => (w.family === 'evm' ? [w.address, w.address.toLowerCase()] : [w.address])))];
  if (!addresses.length) return { items: [] };
  const before = (time: SQL, id: SQL) => (after ? sql`and (${time}, ${id}) < (${after.time}::timestamptz, ${after.id})` : sql``);
  // The cursor's time as PostgreSQL holds it (microseconds): a JS Date would cut it to milliseconds.
  const occurredText = (column: SQL) => sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
  const mine = sql`(o.user_id = ${input.userId} or o.wallet_address in ${addresses})`;

  const rows = await getDb().execute<ActivityRow>(sql`
    select * from (
      (select 'onramp' as kind, o.id, o.created_at as occurred_at, ${occurredText(sql`o.created_at`)} as occurred, o.chain,
              o.token_address, o.token_symbol, o.token_decimals,
              coalesce(o.delivered_base_units, o.crypto_base_units)::text as amount, o.status::text as status,
              o.delivery_tx_hash as tx_hash, o.wallet_address as counterparty, coalesce(p.display_name, o.provider_id) as detail,
              o.charge_id, null as merchant_name
         from onramp_orders o left join onramp_providers p on p.id = o.provider_id
        where ${mine} ${before(sql`o.created_at`, sql`o.id`)}
        order by o.created_at desc, o.id desc limit ${limit + 1})
      union all
      (select 'received', i.id, i.block_time, ${occurredText(sql`i.block_time`)}, i.chain,
              i.token_address, null, null, i.amount_base_units::text, i.status::text,
              i.tx_hash, i.from_address, null, null, null
         from wallet_incoming_transfers i
        where i.to_address in ${addresses} ${before(sql`i.block_time`, sql`i.id`)}
          and not exists (select 1 from onramp_orders o where o.chain = i.chain and lower(o.delivery_tx_hash) = lower(i.tx_hash) and ${mine})
        order by i.block_time desc, i.id desc limit ${limit + 1})
      union all
      (select case when t.purpose = 'balance_payment' then 'charge_payment' else 'sent' end, t.id, t.created_at, ${occurredText(sql`t.created_at`)}, t.chain,
              t.token_address, c.token_symbol, c.token_decimals, t.amount_base_units::text, t.status::text,
              t.tx_hash, t.to_address, t.purpose::text, t.charge_id, m.name
         from outbound_transfers t
         left join charges c on c.id = t.charge_id
         left join merchants m on m.id = c.merchant_id
        where t.from_address in ${addresses} and t.purpose in ('wallet_send', 'balance_payment') ${before(sql`t.created_at`, sql`t.id`)}
        order by t.created_at desc, t.id desc limit ${limit + 1})
    ) as activity
    order by occurred_at desc, id desc
    limit ${limit + 1}`);

  const page = [...rows].slice(0, limit);
  const last = page.at(-1);
  return { items: page.map(toItem), ...(rows.length > limit && last ? { nextCursor: `${last.occurred}~${last.id}` } : {}) };
}

function toItem(row: ActivityRow): ActivityItem {
  const chain = isChainName(row.chain) ? CHAINS[row.chain as ChainName] : undefined;
  const token = chain ? findToken(chain, row.token_address) : undefined;
  const decimals = row.token_decimals ?? token?.decimals;
  const symbol = row.token_symbol ?? token?.symbol;
  const status = statusOf(row.kind, row.status);
  const base = {
    id: row.id,
    kind: row.kind,
    occurredAt: new Date(row.occurred),
    chain: row.chain,
    chainDisplayName: chain?.displayName ?? row.chain,
    amount: decimals !== undefined ? formatAmount(BigInt(row.amount), decimals) : row.amount,
    tokenSymbol: symbol ?? `base units of ${row.token_address}`,
    status,
    statusLabel: statusLabel(row.kind, row.status),
    txHash: row.tx_hash,
    explorerUrl: explorerLink(row.chain, row.tx_hash),
  };
  switch (row.kind) {
    case 'onramp':
      return {
        ...base,
        title: `Bought ${base.tokenSymbol} with ${row.detail}`,
        counterparty: row.counterparty ?? undefined,
        href: `/onramp/orders/${row.id}`,
      };
    case 'received':
      return { ...base, title: 'Received', counterparty: row.counterparty ?? undefined };
    case 'sent':
      return { ...base, title: 'Sent', counterparty: row.counterparty ?? undefined };
    case 'charge_payment':
      return {
        ...base,
        title: `Paid ${row.merchant_name ?? 'a merchant'}`,
        chargeId: row.charge_id ?? undefined,
        merchantName: row.merchant_name ?? undefined,
        href: row.charge_id ? `/checkout/${row.charge_id}` : undefined,
      };
  }
}

function statusOf(kind: ActivityKind, status: string): ActivityStatus {
  switch (kind) {
    case 'onramp':
      return status === 'completed' ? 'completed' : status === 'failed' ? 'failed' : status === 'expired' ? 'expired' : 'pending';
    case 'received':
      // Dropped: its block left the chain and the transaction never came back (the money did not arrive).
      return status === 'confirmed' ? 'completed' : status === 'dropped' ? 'failed' : 'pending';
    case 'sent':
    case 'charge_payment':
      return status === 'confirmed' ? 'completed' : status === 'failed' ? 'failed' : 'pending';
  }
}

const STATUS_LABELS: Record<ActivityKind, Record<string, string>> = {
  onramp: { created: 'Awaiting payment', pending: 'Processing', completed: 'Completed', failed: 'Failed', expired: 'Expired' },
  received: { pending: 'Confirming', confirmed: 'Confirmed', dropped: 'Dropped by the network' },
  sent: { signed: 'Sending', broadcast: 'Sending', confirmed: 'Sent', failed: 'Failed' },
  charge_payment: { signed: 'Sending', broadcast: 'Sending', confirmed: 'Paid', failed: 'Failed' },
};

function statusLabel(kind: ActivityKind, status: string): string {
  return STATUS_LABELS[kind][status] ?? status;
}
