/**
 * Issue 14: open charges per merchant are capped (a leaked publishable key cannot fill the tables), with
 * a lower cap for those created with publishable keys. The refusal stores nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import { resetEnvCache } from '@/lib/env';
import { callRoute, newMerchant, newPublishableKey, storedCounts, testCharge } from '@/test/fixtures';

afterEach(() => {
  delete process.env.MAX_OPEN_CHARGES_PER_MERCHANT;
  delete process.env.MAX_OPEN_PUBLISHABLE_CHARGES_PER_MERCHANT;
  resetEnvCache();
});

describe('open-charge caps', () => {
  it('publishable keys stop at their cap, secret keys at the merchant cap → 429 open_charge_limit, nothing stored', async () => {
    process.env.MAX_OPEN_CHARGES_PER_MERCHANT = '3';
    process.env.MAX_OPEN_PUBLISHABLE_CHARGES_PER_MERCHANT = '2';
    resetEnvCache();
    const merchant = await newMerchant();
    const publishable = await newPublishableKey(merchant.id);
    const create = (apiKey: string) => callRoute(createChargeRoute, { apiKey, body: testCharge() });

    expect((await create(publishable)).status).toBe(200);
    expect((await create(publishable)).status).toBe(200);
    const refused = await create(publishable);
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({ code: 'open_charge_limit' });
    expect((await storedCounts(merchant.id)).charges).toBe(2);

    expect((await create(merchant.testKey)).status).toBe(200);
    const full = await create(merchant.testKey);
    expect(full.status).toBe(429);
    expect(full.json.error).toMatchObject({ code: 'open_charge_limit' });
    expect((await storedCounts(merchant.id)).charges).toBe(3);
  });
});
