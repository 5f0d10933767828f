import { beforeAll, describe, expect, it } from 'vitest';
import { callRoute, newMerchant, newPublishableKey, testCharge, type TestMerchant } from '@/test/fixtures';
import { POST as cancelRoute } from '../charges/[chargeId]/cancel/route';
import { POST as createChargeRoute } from '../createCharge/route';
import { GET as listEventsRoute } from './route';

let merchant: TestMerchant;
const chargeIds: string[] = [];

beforeAll(async () => {
  merchant = await newMerchant();
  for (let i = 0; i < 3; i++) {
    const res = await callRoute(createChargeRoute, { apiKey: merchant.testKey, body: testCharge() });
    chargeIds.push(res.json.data.chargeId);
  }
  await callRoute(cancelRoute, { apiKey: merchant.testKey, params: { chargeId: chargeIds[1]! } });
});

async function list(query = '', apiKey = merchant.testKey) {
  return callRoute(listEventsRoute, { apiKey, path: `/api/events${query}` });
}

describe('GET /api/events', () => {
  it("returns every event of the key's merchant and mode, newest first, as delivered", async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ object: 'list', has_more: false });
    const events = res.json.data.data;
    expect(events.map((e: any) => e.type)).toEqual(['charge.canceled', 'charge.created', 'charge.created', 'charge.created']);
    expect(events[0]).toMatchObject({
      id: expect.stringMatching(/^wevt_/),
      object: 'event',
      type: 'charge.canceled',
      mode: 'test',
      createdAt: expect.any(String),
      data: { charge: { id: chargeIds[1], object: 'charge', status: 'canceled', payments: [] } },
    });
    const created = events.filter((e: any) => e.type === 'charge.created');
    expect(created.map((e: any) => e.data.charge.id).sort()).toEqual([...chargeIds].sort());
    // Frozen at the time: the canceled charge's creation event still shows it pending.
    expect(created.find((e: any) => e.data.charge.id === chargeIds[1]).data.charge.status).toBe('pending');
  });

  it('pages with limit / starting_after / has_more without gaps or repeats', async () => {
    const all = (await list()).json.data.data.map((e: any) => e.id);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page++) {
      const res = await list(`?limit=3${cursor ? `&starting_after=${cursor}` : ''}`);
      seen.push(...res.json.data.data.map((e: any) => e.id));
      if (!res.json.data.has_more) break;
      cursor = seen.at(-1);
    }
    expect(seen).toEqual(all);
  });

  it('filters by type', async () => {
    const res = await list('?type=charge.canceled');
    expect(res.json.data.data.map((e: any) => [e.type, e.data.charge.id])).toEqual([['charge.canceled', chargeIds[1]]]);
    expect((await list('?type=charge.succeeded')).json.data.data).toEqual([]);
  });

  it('keeps merchants and modes apart', async () => {
    const other = await newMerchant();
    expect((await list('', other.testKey)).json.data.data).toEqual([]);
    expect((await list('', merchant.liveKey!)).json.data.data).toEqual([]);
    const cursor = (await list()).json.data.data[0].id;
    const res = await list(`?starting_after=${cursor}`, other.testKey);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_request', param: 'starting_after' });
  });

  it.each([
    ['?type=charge.paid', 'type'],
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?starting_after=wevt_nope', 'starting_after'],
    ['?colour=red', 'colour'],
  ])('%s → 400 invalid_request (%s)', async (query, param) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('needs a secret key', async () => {
    const res = await list('', await newPublishableKey(merchant.id));
    expect(res.status).toBe(403);
    expect(res.json.error?.code).toBe('key_not_permitted');
  });
});
