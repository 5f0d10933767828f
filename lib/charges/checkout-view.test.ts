import { afterEach, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { callRoute, newMerchant, usdcCharge } from '@/test/fixtures';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import { loadCheckoutView } from './checkout-view';

const polygonRpc = process.env.RPC_URL_POLYGON;

afterEach(() => {
  process.env.RPC_URL_POLYGON = polygonRpc;
  resetEnvCache();
});

describe('the checkout of a charge whose chain is no longer served', () => {
  it('says so (the page then offers no way to pay): nothing would see a payment', async () => {
    const merchant = await newMerchant({ verified: true });
    const created = await callRoute(createChargeRoute, { apiKey: merchant.liveKey, body: usdcCharge() });
    const { chargeId } = created.json.data;
    expect((await loadCheckoutView(chargeId))?.isChainServed).toBe(true);

    // The operator removed RPC_URL_POLYGON after the charge was created.
    delete process.env.RPC_URL_POLYGON;
    resetEnvCache();
    expect(await loadCheckoutView(chargeId)).toMatchObject({ status: 'pending', chain: 'POLYGON', isChainServed: false });
  });
});
