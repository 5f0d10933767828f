import { afterEach, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { createTestCharge, newMerchant, usdcCharge } from '@/test/fixtures';
import { loadCheckoutView } from './checkout-view';

const polygonRpc = process.env.RPC_URL_POLYGON;

afterEach(() => {
  process.env.RPC_URL_POLYGON = polygonRpc;
  resetEnvCache();
});

describe('the checkout of a charge whose chain is no longer served', () => {
  it('says so (the page then offers no way to pay): nothing would see a payment', async () => {
    const merchant = await newMerchant({ verified: true });
    const { chargeId } = await createTestCharge({ apiKey: merchant.liveKey, body: usdcCharge() });
    expect((await loadCheckoutView(chargeId))?.isChainServed).toBe(true);

    // The operator removed RPC_URL_POLYGON after the charge was created.
    delete process.env.RPC_URL_POLYGON;
    resetEnvCache();
    expect(await loadCheckoutView(chargeId)).toMatchObject({ status: 'pending', chain: 'POLYGON', isChainServed: false });
  });
});
