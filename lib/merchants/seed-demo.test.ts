import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '@/lib/api-keys/authenticate-api-key';
import { verifyPin } from '@/lib/accounts/pin';
import { findUserByEmail } from '@/lib/accounts/users';
import { DEMO_KEYS, DEMO_MERCHANT, DEMO_PEOPLE, createDemoCharge, seedDemoData } from './seed-demo';
import { findMerchantOfUser } from './become-merchant';

describe('development seed', () => {
  afterEach(() => {
    (process.env as Record<string, string>).NODE_ENV = 'test';
  });

  it('creates a verified demo merchant whose documented keys work, and is idempotent', async () => {
    await seedDemoData();
    await seedDemoData();
    const test = await authenticateApiKey(DEMO_KEYS.test.plaintext);
    const live = await authenticateApiKey(DEMO_KEYS.live.plaintext);
    expect(test.merchant.id).toBe(DEMO_MERCHANT.id);
    expect(test.apiKey.mode).toBe('test');
    expect(live.apiKey.mode).toBe('live');
    expect(live.merchant.verifiedAt).not.toBeNull();
  });

  it("seeds the merchant's owner and a consumer with a PIN and both wallets", async () => {
    const { consumerWallets } = await seedDemoData();
    expect(consumerWallets.map((w) => w.family).sort()).toEqual(['evm', 'solana']);
    const owner = await findUserByEmail(DEMO_PEOPLE.owner.email);
    expect((await findMerchantOfUser(owner!.id))?.merchant.id).toBe(DEMO_MERCHANT.id);
    const consumer = await findUserByEmail(DEMO_PEOPLE.consumer.email);
    await expect(verifyPin({ userId: consumer!.id, pin: DEMO_PEOPLE.consumer.pin })).resolves.toBeUndefined();
  });

  it('creates a ready-to-pay demo charge with a checkout link', async () => {
    await seedDemoData();
    const { chargeId, paymentUrl } = await createDemoCharge();
    expect(paymentUrl).toBe(`http://localhost:3999/checkout/${chargeId}`);
  });

  it('refuses to run in production', async () => {
    (process.env as Record<string, string>).NODE_ENV = 'production';
    await expect(seedDemoData()).rejects.toThrow(/production/);
  });
});
