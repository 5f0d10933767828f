/**
 * `npm run bench:scale`: does the per-poll cost stay flat as history grows? On a private embedded PostgreSQL
 * (deleted afterwards) it writes 100,000 open charges and a history of settled ones — each with its deposit
 * address, payment, events, webhook event and delivery, and sweep row, written with generate_series — then
 * times the database work of each background poll (charge watcher, wallet indexer, sweep, expiry, webhook
 * relay) and createCharge (the route handler, in process), first with 10,000 historical charges, then with
 * 1,000,000. Prints both columns (median ms over the runs) and the ratio against the 1.5× aim.
 *
 *   npm run bench:scale -- [--small 10000] [--large 1000000] [--open 100000] [--runs 30] [--json]
 *
 * The chain watcher and indexer are timed on their database side (what a poll reads: the open transfers it
 * re-checks and the lookup of a block's recipients), as no chain node is involved. Not part of `npm test`.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    small: { type: 'string', default: '10000' },
    large: { type: 'string', default: '1000000' },
    open: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '30' },
    json: { type: 'boolean', default: false },
  },
});
const SMALL = Number(args.small);
const LARGE = Number(args.large);
const OPEN = Number(args.open);
const RUNS = Number(args.runs);
const AIM_RATIO = 1.5;
const DATA_DIR = path.resolve('.data/bench-scale');
const progress = (line: string) => process.stderr.write(`[bench:scale] ${line}\n`);

rmSync(DATA_DIR, { recursive: true, force: true });
const { startEmbeddedPostgres } = await import('@/scripts/stack/embedded-postgres');
const database = await startEmbeddedPostgres({ dataDir: DATA_DIR, persistent: false });
process.env.DATABASE_URL = database.url;
// createCharge serves only chains with an RPC URL; nothing here calls it.
process.env.RPC_URL_POLYGON ??= 'http://127.0.0.1:9';
// Throwaway secrets for the throwaway database.
process.env.WALLET_MASTER_KEY ??= Buffer.alloc(32, 7).toString('base64');
process.env.DEPOSIT_HD_SEED ??= Buffer.alloc(32, 5).toString('base64');

const { migrateDatabase } = await import('@/lib/admin/migrate-database');
const { getDb, getSql, closeDb } = await import('@/lib/db/client');
const { createMerchant } = await import('@/lib/onboarding/create-merchant');
const { openPayments, watchedAddresses } = await import('@/lib/payments/poll-chain');
const { openIncomingTransfers, serviceWalletsLookup } = await import('@/lib/wallets/poll-incoming-transfers');
const { chargesAwaitingSweep } = await import('@/lib/payments/sweep-charges');
const { expireDueCharges } = await import('@/lib/charges/expire-charges');
const { failUnderpaidCharges } = await import('@/lib/payments/settle-charge');
const { relayWaitingDeliveries, relayWebhookEvents } = await import('@/lib/webhooks/relay');
const { POST: createChargeRoute } = await import('@/app/api/createCharge/route');

try {
  await migrateDatabase(database.url);
  const sql = getSql();
  const { merchant, keys } = await createMerchant({ email: 'bench@scale.example', name: 'Scale Bench', verified: true });
  const liveKey = keys.find((key) => key.mode === 'live')!;

  /** Charges n0 … n1-1 of a kind: their deposit addresses, payments, events, deliveries and sweep rows. */
  async function fill(kind: 'history' | 'open', from: number, to: number): Promise<void> {
    const isOpen = kind === 'open';
    const prefix = isOpen ? 'ch_open' : 'ch_hist';
    for (let start = from; start < to; start += 100_000) {
      const end = Math.min(to, start + 100_000) - 1;
      await sql.begin(async (tx) => {
        await tx.unsafe(
          `
          insert into charges (id, merchant_id, api_key_id, mode, chain, token_symbol, token_address, token_decimals,
            total_base_units, items, destination, status, expires_at, created_at, updated_at)
          select '${prefix}' || g, $1, $2, 'live', 'POLYGON', 'USDC', '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 6,
            1000000, '[]'::jsonb, 'merchant_wallet', ${isOpen ? `'pending'` : `'succeeded'`},
            ${isOpen ? `now() + interval '1 day'` : `now() - interval '30 days'`},
            now() - interval '31 days', now() - interval '31 days'
          from generate_series(${start}, ${end}) g`,
          [merchant.id, liveKey.id],
        );
        await tx.unsafe(`
          insert into deposit_addresses (id, charge_id, chain, family, address, derivation_index, watch_until)
          select 'dep_${kind}' || g, '${prefix}' || g, 'POLYGON', 'evm',
            '0x' || lpad(to_hex(${isOpen ? 1 : 2} * 100000000 + g), 40, '0'), nextval('deposit_derivation_index'),
            ${isOpen ? `now() + interval '1 day'` : `now() - interval '29 days'`}
          from generate_series(${start}, ${end}) g`);
        await tx.unsafe(`
          insert into charge_events (id, charge_id, type, from_status, to_status, actor, created_at)
          select 'evt_${kind}' || g, '${prefix}' || g, 'charge.created', null, 'pending', 'bench', now() - interval '31 days'
          from generate_series(${start}, ${end}) g`);
        if (isOpen) return;
        await tx.unsafe(`
          insert into payments (id, charge_id, chain, tx_hash, log_index, from_address, to_address, token_address,
            amount_base_units, block_number, block_hash, status, created_at, updated_at)
          select 'pay_hist' || g, '${prefix}' || g, 'POLYGON', '0x' || lpad(to_hex(g), 64, '0'), 0,
            '0x' || lpad(to_hex(g), 40, '0'), '0x' || lpad(to_hex(200000000 + g), 40, '0'),
            '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', 1000000, g, '0x' || md5(g::text), 'confirmed',
            now() - interval '31 days', now() - interval '31 days'
          from generate_series(${start}, ${end}) g`);
        await tx.unsafe(`
          insert into charge_events (id, charge_id, type, from_status, to_status, actor, created_at)
          select 'evt_hist_ok' || g, '${prefix}' || g, 'charge.succeeded', 'processing', 'succeeded', 'bench', now() - interval '31 days'
          from generate_series(${start}, ${end}) g`);
        await tx.unsafe(
          `
          insert into webhook_events (id, merchant_id, mode, type, charge_id, sequence, payload, relayed_at, created_at)
          select 'whe_hist' || g, $1, 'live', 'charge.succeeded', '${prefix}' || g, 2, '{}'::json, now() - interval '31 days', now() - interval '31 days'
          from generate_series(${start}, ${end}) g`,
          [merchant.id],
        );
        await tx.unsafe(`
          insert into webhook_deliveries (id, event_id, endpoint_id, charge_id, event_sequence, attempt, status, scheduled_at, created_at)
          select 'whd_hist' || g, 'whe_hist' || g, 'we_bench', '${prefix}' || g, 2, 1, 'succeeded', now() - interval '31 days', now() - interval '31 days'
          from generate_series(${start}, ${end}) g`);
        await tx.unsafe(`
          insert into sweep_schedule (charge_id, due_at) select '${prefix}' || g, null from generate_series(${start}, ${end}) g
          on conflict (charge_id) do update set due_at = null`);
      });
      progress(`${kind}: ${end + 1} charges written`);
    }
    await sql.unsafe('analyze');
  }

  async function median(run: () => Promise<unknown>): Promise<number> {
    await run();
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await run();
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  }

  const recipients = (n: number) =>
    Array.from({ length: n }, (_, i) => `0x${(i % 2 ? 100000000 + ((i * 7919) % OPEN) : 200000000 + i).toString(16).padStart(40, '0')}`);
  let created = 0;
  const measures: Record<string, () => Promise<unknown>> = {
    'charge watcher (open payments + 200 recipients)': () =>
      getDb().transaction(async (tx) => {
        await openPayments(tx, 'POLYGON');
        await watchedAddresses(tx, 'POLYGON', new Date(), recipients(200));
      }),
    'wallet indexer (open transfers + 200 recipients)': () =>
      getDb().transaction(async (tx) => {
        await openIncomingTransfers(tx, 'POLYGON');
        await serviceWalletsLookup(tx, recipients(200));
      }),
    'sweep (due charges)': () => chargesAwaitingSweep(),
    'expiry (expire + fail underpaid)': async () => {
      await expireDueCharges();
      await getDb().transaction((tx) => failUnderpaidCharges(tx));
    },
    'webhook relay (outbox + waiting deliveries)': async () => {
      await relayWebhookEvents();
      await relayWaitingDeliveries();
    },
    createCharge: async () => {
      const response = await createChargeRoute(
        new Request('http://localhost/api/createCharge', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': liveKey.plaintext, 'idempotency-key': `bench-${created++}` },
          body: JSON.stringify({
            chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', amount: '1' },
          }),
        }),
        { params: Promise.resolve({}) },
      );
      if (response.status !== 200) throw new Error(`createCharge answered ${response.status}: ${await response.text()}`);
    },
  };

  await sql`insert into webhook_endpoints (id, merchant_id, mode, url, event_types, signing_secret) values ('we_bench', ${merchant.id}, 'live', 'https://hooks.example/bench', '{}', 'x')`;
  await fill('open', 0, OPEN);
  await fill('history', 0, SMALL);
  const small: Record<string, number> = {};
  for (const [name, run] of Object.entries(measures)) small[name] = await median(run);
  progress(`measured at ${SMALL} historical charges`);
  await fill('history', SMALL, LARGE);
  const large: Record<string, number> = {};
  for (const [name, run] of Object.entries(measures)) large[name] = await median(run);
  progress(`measured at ${LARGE} historical charges`);

  const rows = Object.keys(measures).map((name) => ({
    name,
    small: small[name]!,
    large: large[name]!,
    ratio: large[name]! / small[name]!,
  }));
  if (args.json) console.log(JSON.stringify({ small: SMALL, large: LARGE, open: OPEN, runs: RUNS, aimRatio: AIM_RATIO, rows }, null, 2));
  else {
    const width = Math.max(...rows.map((row) => row.name.length));
    console.log(`median ms per poll/request, ${OPEN.toLocaleString('en')} open charges, ${RUNS} runs each`);
    console.log(
      `${'operation'.padEnd(width)}  ${`${SMALL.toLocaleString('en')} hist`.padStart(12)}  ${`${LARGE.toLocaleString('en')} hist`.padStart(14)}  ratio  aim ≤ ${AIM_RATIO}×`,
    );
    for (const row of rows) {
      console.log(
        `${row.name.padEnd(width)}  ${row.small.toFixed(2).padStart(12)}  ${row.large.toFixed(2).padStart(14)}  ${row.ratio.toFixed(2).padStart(5)}  ${row.ratio <= AIM_RATIO ? 'met' : 'MISSED'}`,
      );
    }
  }
} finally {
  await closeDb();
  await database.stop();
  rmSync(DATA_DIR, { recursive: true, force: true });
}
// Timers started by the verbs measured (the delivery worker's wake-up, metrics) must not keep the bench alive.
process.exit(0);
