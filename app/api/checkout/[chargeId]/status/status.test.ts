/**
 * GET /api/checkout/{chargeId}/status: the checkout's live view for anyone holding the charge id, in the
 * shape the OpenAPI document declares (callRoute validates every answer against it).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { callRoute, newMerchant, usdcCharge, type TestMerchant } from '@/test/fixtures';
import { POST as createChargeRoute } from '../../../createCharge/route';
import { GET } from './route';

let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await newMerchant();
});

describe('GET /api/checkout/{chargeId}/status', () => {
  it('answers a pending charge with no key: amounts, due, where to pay, payable', async () => {
    const created = await callRoute(createChargeRoute, { apiKey: merchant.liveKey, body: usdcCharge() });
    const { chargeId } = created.json.data;
    const res = await callRoute(GET, { params: { chargeId }, path: `/api/checkout/${chargeId}/status` });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.json.data).toMatchObject({ chargeId, status: 'pending', total: '4.99', received: '0', due: '4.99', payable: true });
    expect(res.json.data.deposit.uri).toContain(res.json.data.deposit.address);
  });

  it('an unknown or malformed id is 404 not_found', async () => {
    for (const chargeId of ['ch_0000000000000000000000', 'nope']) {
      const res = await callRoute(GET, { params: { chargeId }, path: `/api/checkout/${chargeId}/status` });
      expect(res.status).toBe(404);
      expect(res.json.error?.code).toBe('not_found');
    }
  });
});
