import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { apiKeys } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { authenticateApiKey } from '@/lib/api-keys/authenticate-api-key';
import { verifyPin } from '@/lib/accounts/verify-pin';
import { findUserByEmail } from '@/lib/accounts/find-user';
import { loadCheckoutView } from '@/lib/charges/checkout-view';
import { DEMO_KEYS, DEMO_MERCHANT, DEMO_PEOPLE, createDemoCharge, seedDemoData } from './seed-demo';
import { findMerchantOfUser } from '@/lib/merchants/find-merchant-of-user';
import { demoSeedRefusal } from '@/lib/merchants/demo-seed-refusal';

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
    // The owner's PIN confirms the demo's contract registration and rule (step-up, lib/admin/demo-game-items.ts).
    await expect(verifyPin({ userId: owner!.id, pin: DEMO_PEOPLE.owner.pin })).resolves.toBeUndefined();
    const consumer = await findUserByEmail(DEMO_PEOPLE.consumer.email);
    await expect(verifyPin({ userId: consumer!.id, pin: DEMO_PEOPLE.consumer.pin })).resolves.toBeUndefined();
  });

  it('creates a ready-to-pay demo charge with a checkout link that redirects back when paid or canceled', async () => {
    await seedDemoData();
    const { chargeId, paymentUrl } = await createDemoCharge('http://localhost:3999');
    expect(paymentUrl).toBe(`http://localhost:3999/checkout/${chargeId}`);
    const view = await loadCheckoutView(chargeId);
    expect(view).toMatchObject({
      successUrl: 'http://localhost:3999/?demo_charge=paid',
      cancelUrl: 'http://localhost:3999/?demo_charge=canceled',
    });
  });

  it('refuses to run in production', async () => {
    (process.env as Record<string, string>).NODE_ENV = 'production';
    await expect(seedDemoData()).rejects.toThrow(/production/);
  });
});

describe('the demo seed stays on this machine', () => {
  afterEach(() => {
    process.env.DATABASE_URL = databaseUrl;
    delete process.env.SEED_DEMO;
    resetEnvCache();
  });
  const databaseUrl = process.env.DATABASE_URL;

  it.each([
    ['unset (the embedded PostgreSQL)', undefined],
    ['localhost', 'postgres://app:pw@localhost:5432/cp'],
    ['127.0.0.1', 'postgres://app:pw@127.0.0.1:5433/cp'],
    ['another loopback address', 'postgresql://127.0.0.2/cp'],
    ['IPv6 loopback', 'postgres://app@[::1]:5432/cp'],
    ['a *.localhost name', 'postgres://db.localhost/cp'],
    ['a Unix socket', 'postgres://app@/cp?host=/var/run/postgresql'],
  ])('seeds into a database that is %s', (_what, url) => {
    expect(demoSeedRefusal({ databaseUrl: url, seedDemo: undefined })).toBeNull();
  });

  it.each([
    ['a hosted database', 'postgres://app:pw@db.example.com:5432/cp', 'db.example.com'],
    ['a private-network address', 'postgres://app:pw@10.0.0.5/cp', '10.0.0.5'],
    ['a name that only contains localhost', 'postgres://localhost.evil.example/cp', 'localhost.evil.example'],
  ])('refuses %s with a message that says why and how to override', (_what, url, host) => {
    const refusal = demoSeedRefusal({ databaseUrl: url, seedDemo: undefined });
    expect(refusal).toContain(`DATABASE_URL points at ${host}`);
    expect(refusal).toContain('SEED_DEMO=true');
    expect(refusal).not.toContain('pw');
  });

  it('SEED_DEMO=true seeds anywhere, SEED_DEMO=false nowhere', () => {
    expect(demoSeedRefusal({ databaseUrl: 'postgres://db.example.com/cp', seedDemo: true })).toBeNull();
    expect(demoSeedRefusal({ databaseUrl: undefined, seedDemo: false })).toContain('SEED_DEMO=false');
  });

  it('seedDemoData itself refuses a remote DATABASE_URL and writes nothing', async () => {
    const before = await getDb().select().from(apiKeys).where(eq(apiKeys.id, DEMO_KEYS.test.id));
    await getDb().delete(apiKeys).where(eq(apiKeys.id, DEMO_KEYS.test.id));
    process.env.DATABASE_URL = 'postgres://app:pw@db.example.com:5432/cp';
    resetEnvCache();
    await expect(seedDemoData()).rejects.toThrow(/Not seeding the demo merchant: DATABASE_URL points at db\.example\.com/);
    process.env.DATABASE_URL = databaseUrl;
    resetEnvCache();
    expect(await getDb().select().from(apiKeys).where(eq(apiKeys.id, DEMO_KEYS.test.id))).toHaveLength(0);
    if (before.length) await getDb().insert(apiKeys).values(before);
  });
});
