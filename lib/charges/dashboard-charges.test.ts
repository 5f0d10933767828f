/**
 * The dashboard's charge views against real PostgreSQL: the Charges list (filters, search, pages),
 * the Overview's daily figures, the CSV export and the charge page — each scoped to one merchant and
 * one mode, and refused to non-members.
 */
import { asc, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { chargeEvents, charges, merchantMembers, payments, webhookDeliveries, webhookEndpoints, webhookEvents } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { appError, newUser } from '@/test/accounts';
import { createTestCharge, NATIVE_EVM, newMerchant, POLYGON_USDC, serveChainsWithoutNode, testCharge, usdcCharge } from '@/test/fixtures';
import { parseCsv } from '@/test/parse-csv';
import type { DashboardChargeFilters } from './dashboard-filters';
import { EXPORT_COLUMNS, exportChargesCsv } from './export-charges-csv';
import { getChargeForDashboard } from './get-dashboard-charge';
import { getDashboardOverview, windowDays } from './get-dashboard-overview';
import { listChargesForDashboard } from './list-dashboard-charges';
import { transitionCharge } from './transition-charge';

const BSC_USDT = '0x55d398326f99059fF775485246999027B3197955';

interface Owner {
  merchantId: string;
  userId: string;
  testKey: string;
  liveKey: string;
}

async function merchantWithOwner(): Promise<Owner> {
  const merchant = await newMerchant({ verified: true });
  const userId = await newUser();
  await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId, role: 'owner' });
  return { merchantId: merchant.id, userId, testKey: merchant.testKey, liveKey: merchant.liveKey! };
}

async function create(apiKey: string, body: unknown): Promise<string> {
  return (await createTestCharge({ apiKey, body })).chargeId;
}

/** pending → processing → succeeded through the state machine, as settlement does. */
async function succeed(chargeId: string): Promise<void> {
  await getDb().transaction(async (tx) => {
    await transitionCharge(tx, { chargeId, to: 'processing', actor: 'test' });
    await transitionCharge(tx, { chargeId, to: 'succeeded', actor: 'test' });
  });
}

/** Set-up only: move a charge's creation to a given instant (text, so microseconds are kept). */
async function setCreatedAt(chargeId: string, instant: string): Promise<void> {
  await getDb()
    .update(charges)
    .set({ createdAt: sql`${instant}::timestamptz` })
    .where(eq(charges.id, chargeId));
}

async function listAll(owner: Owner, mode: 'test' | 'live', filters: DashboardChargeFilters = {}, limit = 100): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await listChargesForDashboard({ userId: owner.userId, merchantId: owner.merchantId, mode, filters, cursor, limit });
    ids.push(...page.charges.map((charge) => charge.id));
    if (!page.nextCursor) return ids;
    cursor = page.nextCursor;
  }
  throw new Error('pagination did not end');
}

async function csvOf(owner: Owner, mode: 'test' | 'live', filters: DashboardChargeFilters = {}, batchSize?: number): Promise<string[][]> {
  let text = '';
  for await (const chunk of await exportChargesCsv({ userId: owner.userId, merchantId: owner.merchantId, mode, filters, batchSize }))
    text += chunk;
  return parseCsv(text);
}

describe('listChargesForDashboard: filters and search', () => {
  let owner: Owner;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    serveChainsWithoutNode('BSC');
    owner = await merchantWithOwner();
    ids.usdcPaid = await create(owner.liveKey, usdcCharge({ metadata: { orderId: '1001', player: 'alice' } }));
    ids.usdcPending = await create(owner.liveKey, usdcCharge({ metadata: { orderId: '1002', player: 'bob' } }));
    ids.polPaid = await create(owner.liveKey, {
      chargeData: { symbol: 'POL', chain: 'POLYGON', tokenAddress: NATIVE_EVM, amount: '2', metadata: { sku: '1001' } },
    });
    ids.bscPending = await create(owner.liveKey, { chargeData: { symbol: 'USDT', chain: 'BSC', tokenAddress: BSC_USDT, amount: '5' } });
    ids.testCharge = await create(owner.testKey, testCharge({ metadata: { orderId: '1001' } }));
    await succeed(ids.usdcPaid);
    await succeed(ids.polPaid);
    await setCreatedAt(ids.usdcPaid, '2026-01-10T12:00:00Z');
    await setCreatedAt(ids.polPaid, '2026-01-11T23:59:59.999999Z');
    await setCreatedAt(ids.usdcPending, '2026-01-12T00:00:00Z');
  });

  const live = (filters: DashboardChargeFilters) => listAll(owner, 'live', filters).then((list) => [...list].sort());
  const sorted = (...keys: string[]) => keys.map((key) => ids[key]!).sort();

  it('without filters: every charge of the mode, newest first', async () => {
    const all = await listAll(owner, 'live');
    expect([...all].sort()).toEqual(sorted('usdcPaid', 'usdcPending', 'polPaid', 'bscPending'));
    expect(all.at(-1)).toBe(ids.usdcPaid);
  });

  it('each filter narrows: status, chain, token (any case), created date range', async () => {
    expect(await live({ status: 'succeeded' })).toEqual(sorted('usdcPaid', 'polPaid'));
    expect(await live({ status: 'pending' })).toEqual(sorted('usdcPending', 'bscPending'));
    expect(await live({ status: 'failed' })).toEqual([]);
    expect(await live({ chain: 'BSC' })).toEqual(sorted('bscPending'));
    expect(await live({ chain: 'POLYGON' })).toEqual(sorted('usdcPaid', 'usdcPending', 'polPaid'));
    expect(await live({ token: 'usdc' })).toEqual(sorted('usdcPaid', 'usdcPending'));
    expect(await live({ token: 'USDT' })).toEqual(sorted('bscPending'));
    // Days are inclusive UTC days: the last microsecond of the 11th is in, midnight of the 12th is not.
    expect(await live({ from: '2026-01-10', to: '2026-01-11' })).toEqual(sorted('usdcPaid', 'polPaid'));
    expect(await live({ from: '2026-01-11', to: '2026-01-11' })).toEqual(sorted('polPaid'));
    expect(await live({ from: '2026-01-12', to: '2026-01-12' })).toEqual(sorted('usdcPending'));
    expect(await live({ status: 'succeeded', token: 'USDC', chain: 'POLYGON' })).toEqual(sorted('usdcPaid'));
  });

  it('search: an exact charge id, a metadata key:value, or a value under any key — exact, never a substring', async () => {
    expect(await live({ q: ids.usdcPending! })).toEqual(sorted('usdcPending'));
    expect(await live({ q: 'orderId:1001' })).toEqual(sorted('usdcPaid'));
    expect(await live({ q: 'player:bob' })).toEqual(sorted('usdcPending'));
    expect(await live({ q: '1001' })).toEqual(sorted('usdcPaid', 'polPaid'));
    expect(await live({ q: 'alice' })).toEqual(sorted('usdcPaid'));
    expect(await live({ q: '100' })).toEqual([]);
    expect(await live({ q: 'orderId:100' })).toEqual([]);
    expect(await live({ q: 'sku:1002' })).toEqual([]);
    // Search text is data, never SQL or JSON path syntax.
    expect(await live({ q: "orderId:1001' or '1'='1" })).toEqual([]);
    expect(await live({ q: '" || @ != "' })).toEqual([]);
    // The test charge with the same metadata stays in test mode.
    expect(await listAll(owner, 'test', { q: 'orderId:1001' })).toEqual([ids.testCharge]);
  });

  it("another merchant's charge id finds nothing, and a cursor from elsewhere is refused", async () => {
    const other = await merchantWithOwner();
    const foreign = await create(other.liveKey, usdcCharge());
    expect(await live({ q: foreign })).toEqual([]);
    const error = await appError(
      listChargesForDashboard({ userId: owner.userId, merchantId: owner.merchantId, mode: 'live', filters: {}, cursor: foreign }),
    );
    expect(error).toMatchObject({ code: 'invalid_request', param: 'after' });
    // The other mode's charge is not a cursor either.
    await expect(
      listChargesForDashboard({ userId: owner.userId, merchantId: owner.merchantId, mode: 'live', filters: {}, cursor: ids.testCharge }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('amounts are exact decimal text', async () => {
    const page = await listChargesForDashboard({
      userId: owner.userId,
      merchantId: owner.merchantId,
      mode: 'live',
      filters: { q: ids.usdcPaid! },
    });
    expect(page.charges[0]).toMatchObject({
      amount: '4.99',
      totalBaseUnits: 4_990_000n,
      tokenSymbol: 'USDC',
      chain: 'POLYGON',
      status: 'succeeded',
    });
  });
});

describe('listChargesForDashboard: pages', () => {
  it('returns every charge exactly once across pages, even when many share a creation instant', async () => {
    const owner = await merchantWithOwner();
    const created: string[] = [];
    for (let i = 0; i < 9; i++) created.push(await create(owner.testKey, testCharge()));
    // Same microsecond for three, the same millisecond (different microseconds) for three more.
    for (const id of created.slice(0, 3)) await setCreatedAt(id, '2026-02-01T10:00:00.123456Z');
    await setCreatedAt(created[3]!, '2026-02-01T10:00:00.123100Z');
    await setCreatedAt(created[4]!, '2026-02-01T10:00:00.123900Z');
    await setCreatedAt(created[5]!, '2026-02-01T10:00:00.123001Z');
    for (const limit of [1, 2, 4, 100]) {
      const seen = await listAll(owner, 'test', {}, limit);
      expect(seen).toHaveLength(9);
      expect(new Set(seen).size).toBe(9);
      expect([...seen].sort()).toEqual([...created].sort());
    }
    // Newest first by (created_at, id), microseconds included.
    const order = await getDb()
      .select({ id: charges.id })
      .from(charges)
      .where(eq(charges.merchantId, owner.merchantId))
      .orderBy(sql`${charges.createdAt} desc`, sql`${charges.id} desc`);
    expect(await listAll(owner, 'test', {}, 2)).toEqual(order.map((row) => row.id));
    // Filters apply on every page.
    await succeed(created[0]!);
    await succeed(created[4]!);
    expect((await listAll(owner, 'test', { status: 'succeeded' }, 1)).sort()).toEqual([created[0]!, created[4]!].sort());
  });
});

describe('mode isolation and membership', () => {
  it('test data never shows in live (list, overview, charge page, export), nor the reverse', async () => {
    const owner = await merchantWithOwner();
    const testId = await create(owner.testKey, testCharge());
    const liveId = await create(owner.liveKey, usdcCharge());
    await succeed(testId);
    const member = { userId: owner.userId, merchantId: owner.merchantId };

    expect(await listAll(owner, 'test')).toEqual([testId]);
    expect(await listAll(owner, 'live')).toEqual([liveId]);
    const testOverview = await getDashboardOverview({ ...member, mode: 'test' });
    const liveOverview = await getDashboardOverview({ ...member, mode: 'live' });
    expect(testOverview.succeededCount).toBe(1);
    expect(testOverview.recent.map((c) => c.id)).toEqual([testId]);
    expect(liveOverview.succeededCount).toBe(0);
    expect(liveOverview.series).toEqual([]);
    expect(liveOverview.recent.map((c) => c.id)).toEqual([liveId]);
    await expect(getChargeForDashboard({ ...member, mode: 'live', chargeId: testId })).rejects.toMatchObject({ code: 'not_found' });
    await expect(getChargeForDashboard({ ...member, mode: 'test', chargeId: liveId })).rejects.toMatchObject({ code: 'not_found' });
    expect((await csvOf(owner, 'test')).slice(1).map((row) => [row[0], row[6]])).toEqual([[testId, 'test']]);
    expect((await csvOf(owner, 'live')).slice(1).map((row) => [row[0], row[6]])).toEqual([[liveId, 'live']]);
  });

  it("a member of another merchant is refused everything; another merchant's charge is not found", async () => {
    const owner = await merchantWithOwner();
    const other = await merchantWithOwner();
    const foreign = await create(other.liveKey, usdcCharge());
    const intruder = { userId: owner.userId, merchantId: other.merchantId, mode: 'live' as const };
    await expect(listChargesForDashboard({ ...intruder, filters: {} })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(getDashboardOverview(intruder)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(getChargeForDashboard({ ...intruder, chargeId: foreign })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(exportChargesCsv({ ...intruder, filters: {} })).rejects.toMatchObject({ code: 'forbidden' });
    // Through their own merchant, the other merchant's charge does not exist.
    await expect(
      getChargeForDashboard({ userId: owner.userId, merchantId: owner.merchantId, mode: 'live', chargeId: foreign }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
    // A stranger with no membership at all.
    const stranger = await newUser();
    await expect(getDashboardOverview({ userId: stranger, merchantId: owner.merchantId, mode: 'test' })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('every role may view (viewer included)', async () => {
    const owner = await merchantWithOwner();
    const viewer = await newUser();
    await getDb().insert(merchantMembers).values({ merchantId: owner.merchantId, userId: viewer, role: 'viewer' });
    const id = await create(owner.testKey, testCharge());
    const page = await listChargesForDashboard({ userId: viewer, merchantId: owner.merchantId, mode: 'test', filters: {} });
    expect(page.charges.map((c) => c.id)).toEqual([id]);
  });
});

describe('getDashboardOverview', () => {
  it('counts and sums succeeded charges per UTC day and per token, exactly, over the last 30 days', async () => {
    const owner = await merchantWithOwner();
    const now = new Date('2026-03-31T15:00:00Z');
    const days = windowDays(now);
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2026-03-02');
    expect(days.at(-1)).toBe('2026-03-31');

    const pol = (amount: string) => ({ chargeData: { symbol: 'POL', chain: 'POLYGON', tokenAddress: NATIVE_EVM, amount } });
    const usdc = (amount: string) => usdcCharge({ items: undefined, amount });
    const plan: { body: unknown; at: string; paid: boolean }[] = [
      // 18 decimals: sums a float could not hold.
      { body: pol('1.000000000000000001'), at: '2026-03-31T00:00:00Z', paid: true },
      { body: pol('2.000000000000000002'), at: '2026-03-31T14:59:59Z', paid: true },
      { body: pol('7'), at: '2026-03-31T10:00:00Z', paid: false },
      { body: usdc('9007199254.740993'), at: '2026-03-31T01:00:00Z', paid: true },
      { body: usdc('9007199254.740993'), at: '2026-03-02T00:00:00Z', paid: true },
      { body: usdc('0.11'), at: '2026-03-15T23:59:59.999999Z', paid: true },
      // Just before the window, and another mode: not counted.
      { body: usdc('100'), at: '2026-03-01T23:59:59.999999Z', paid: true },
    ];
    for (const entry of plan) {
      const id = await create(owner.liveKey, entry.body);
      if (entry.paid) await succeed(id);
      await setCreatedAt(id, entry.at);
    }
    const testId = await create(owner.testKey, testCharge());
    await succeed(testId);
    await setCreatedAt(testId, '2026-03-31T02:00:00Z');

    const overview = await getDashboardOverview({ userId: owner.userId, merchantId: owner.merchantId, mode: 'live', now });
    expect(overview.succeededCount).toBe(5);
    expect(overview.dailyCounts.filter((d) => d.count > 0)).toEqual([
      { day: '2026-03-02', count: 1 },
      { day: '2026-03-15', count: 1 },
      { day: '2026-03-31', count: 3 },
    ]);
    expect(overview.series.map((s) => [s.chain, s.tokenSymbol, s.count, s.volume, s.usd])).toEqual([
      ['POLYGON', 'USDC', 3, '18014398509.591986', '18014398509.59'],
      // POL has no fixed USD value: no USD figure, and it is never added to USDC.
      ['POLYGON', 'POL', 2, '3.000000000000000003', undefined],
    ]);
    const polSeries = overview.series.find((s) => s.tokenSymbol === 'POL')!;
    expect(polSeries.days).toHaveLength(30);
    expect(polSeries.days.at(-1)).toEqual({
      day: '2026-03-31',
      count: 2,
      volumeBaseUnits: 3_000_000_000_000_000_003n,
      volume: '3.000000000000000003',
    });
    expect(polSeries.days.filter((d) => d.count === 0).every((d) => d.volumeBaseUnits === 0n && d.volume === '0')).toBe(true);
    const usdcSeries = overview.series.find((s) => s.tokenSymbol === 'USDC')!;
    expect(usdcSeries.days.filter((d) => d.count > 0).map((d) => [d.day, d.volume])).toEqual([
      ['2026-03-02', '9007199254.740993'],
      ['2026-03-15', '0.11'],
      ['2026-03-31', '9007199254.740993'],
    ]);
    expect(usdcSeries.volumeBaseUnits).toBe(2n * 9_007_199_254_740_993n + 110_000n);
    expect(overview.recent).toHaveLength(7);
    expect(overview.recent.every((c) => c.chain === 'POLYGON')).toBe(true);
  });

  it('lists the 10 most recent charges of any status', async () => {
    const owner = await merchantWithOwner();
    const created: string[] = [];
    for (let i = 0; i < 12; i++) created.push(await create(owner.testKey, testCharge()));
    const overview = await getDashboardOverview({ userId: owner.userId, merchantId: owner.merchantId, mode: 'test' });
    expect(overview.recent).toHaveLength(10);
    expect(new Set(overview.recent.map((c) => c.id))).toEqual(new Set(created.slice(2)));
  });
});

describe('exportChargesCsv', () => {
  it('streams every matching charge with its columns, escaped, across batches', async () => {
    const owner = await merchantWithOwner();
    const tricky = { orderId: 'A-1', note: '=HYPERLINK("http://evil.example","x")', memo: 'a,b "c"\nd' };
    const paid = await create(owner.liveKey, usdcCharge({ metadata: tricky }));
    const pending = await create(owner.liveKey, usdcCharge({ metadata: { orderId: 'A-2' } }));
    const others: string[] = [];
    for (let i = 0; i < 4; i++) others.push(await create(owner.liveKey, usdcCharge()));
    const [deposit] = await getDb().select().from(charges).where(eq(charges.id, paid));
    const txHash = `0x${'ab'.repeat(32)}`;
    await getDb()
      .insert(payments)
      .values({
        id: newId('payment'),
        chargeId: paid,
        chain: 'POLYGON',
        txHash,
        logIndex: 0,
        fromAddress: '0x000000000000000000000000000000000000dEaD',
        toAddress: '0x000000000000000000000000000000000000bEEF',
        tokenAddress: POLYGON_USDC,
        amountBaseUnits: deposit!.totalBaseUnits,
        blockNumber: 1n,
        blockHash: `0x${'cd'.repeat(32)}`,
        status: 'confirmed',
      });
    await succeed(paid);

    const rows = await csvOf(owner, 'live', {}, 2);
    expect(rows[0]).toEqual([...EXPORT_COLUMNS]);
    expect(
      rows
        .slice(1)
        .map((row) => row[0])
        .sort(),
    ).toEqual([paid, pending, ...others].sort());
    expect(rows.every((row) => row.length === EXPORT_COLUMNS.length)).toBe(true);

    const row = Object.fromEntries(EXPORT_COLUMNS.map((column, i) => [column, rows.find((r) => r[0] === paid)![i]]));
    const [succeededEvent] = await getDb()
      .select()
      .from(chargeEvents)
      .where(sql`${chargeEvents.chargeId} = ${paid} and ${chargeEvents.type} = 'charge.succeeded'`);
    expect(row).toEqual({
      id: paid,
      created_at: deposit!.createdAt.toISOString(),
      status: 'succeeded',
      chain: 'POLYGON',
      token: 'USDC',
      amount: '4.99',
      mode: 'live',
      metadata: expect.any(String),
      succeeded_at: succeededEvent!.createdAt.toISOString(),
      tx_hashes: txHash,
    });
    expect(JSON.parse(row.metadata!)).toEqual(tricky);
    const pendingRow = rows.find((r) => r[0] === pending)!;
    expect([pendingRow[2], pendingRow[8], pendingRow[9]]).toEqual(['pending', '', '']);

    // The same filters as the list.
    expect((await csvOf(owner, 'live', { status: 'succeeded' })).slice(1).map((r) => r[0])).toEqual([paid]);
    expect((await csvOf(owner, 'live', { q: 'orderId:A-2' })).slice(1).map((r) => r[0])).toEqual([pending]);
    expect(await csvOf(owner, 'test')).toEqual([[...EXPORT_COLUMNS]]);
  });

  it('guards cells against formula injection (a metadata JSON cell starts with "{", an id never with = + - @)', async () => {
    const owner = await merchantWithOwner();
    await create(owner.liveKey, usdcCharge({ metadata: { '=cmd': '+1' } }));
    let text = '';
    for await (const chunk of await exportChargesCsv({ userId: owner.userId, merchantId: owner.merchantId, mode: 'live', filters: {} }))
      text += chunk;
    const cells = parseCsv(text)[1]!;
    expect(cells.every((cell) => !/^[=+\-@]/.test(cell))).toBe(true);
    expect(cells[7]).toBe('{"=cmd":"+1"}');
  });
});

describe('getChargeForDashboard', () => {
  it('returns the charge with its timeline, payments and the webhook deliveries of its events', async () => {
    const owner = await merchantWithOwner();
    const chargeId = await create(owner.testKey, testCharge());
    await succeed(chargeId);
    const endpointId = newId('webhookEndpoint');
    await getDb()
      .insert(webhookEndpoints)
      .values({
        id: endpointId,
        merchantId: owner.merchantId,
        mode: 'test',
        url: 'https://hooks.example/chargeport',
        eventTypes: ['*'],
        signingSecret: 'not-a-real-sealed-secret',
      });
    const events = await getDb()
      .select()
      .from(webhookEvents)
      .where(eq(webhookEvents.chargeId, chargeId))
      .orderBy(asc(webhookEvents.createdAt));
    // processing and succeeded are emitted in one transaction, possibly in the same millisecond: compare as a set.
    expect(events.map((e) => e.type).sort()).toEqual(['charge.created', 'charge.processing', 'charge.succeeded']);
    const created = events.find((e) => e.type === 'charge.created')!;
    const at = new Date();
    await getDb()
      .insert(webhookDeliveries)
      .values([
        {
          id: newId('webhookDelivery'),
          eventId: created.id,
          endpointId,
          attempt: 1,
          status: 'failed',
          scheduledAt: at,
          attemptedAt: at,
          responseStatus: 500,
          nextAttemptAt: new Date(at.getTime() + 5000),
        },
        {
          id: newId('webhookDelivery'),
          eventId: created.id,
          endpointId,
          attempt: 2,
          status: 'succeeded',
          scheduledAt: at,
          attemptedAt: at,
          responseStatus: 200,
        },
      ]);

    const details = await getChargeForDashboard({ userId: owner.userId, merchantId: owner.merchantId, mode: 'test', chargeId });
    expect(details.charge).toMatchObject({ id: chargeId, status: 'succeeded', chain: 'POLYGON_AMOY' });
    expect(details.events.map((e) => [e.type, e.fromStatus, e.toStatus])).toEqual([
      ['charge.pending', null, 'pending'],
      ['charge.processing', 'pending', 'processing'],
      ['charge.succeeded', 'processing', 'succeeded'],
    ]);
    expect(details.payments).toEqual([]);
    const rows = details.deliveries.map((d) => [
      d.eventType,
      d.attempt?.attempt,
      d.attempt?.status,
      d.attempt?.responseStatus,
      d.attempt?.endpointUrl,
    ]);
    expect(rows.slice(0, 2)).toEqual([
      ['charge.created', 1, 'failed', 500, 'https://hooks.example/chargeport'],
      ['charge.created', 2, 'succeeded', 200, 'https://hooks.example/chargeport'],
    ]);
    // Events nobody received are listed too (no attempt).
    expect(rows.slice(2).sort()).toEqual([
      ['charge.processing', undefined, undefined, undefined, undefined],
      ['charge.succeeded', undefined, undefined, undefined, undefined],
    ]);
    // Another merchant's endpoint and events never show: only this charge's, of its merchant and mode.
    expect(new Set(details.deliveries.map((d) => d.eventId))).toEqual(new Set(events.map((e) => e.id)));
  });
});
