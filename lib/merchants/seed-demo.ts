/**
 * Development seed: a verified demo merchant with fixed, documented keys, so the README's curl
 * examples work verbatim against `npm run dev`. Never run in production (the launcher only calls it
 * for `dev`, and it refuses when NODE_ENV is production).
 */
import { getDb } from '@/lib/db/client';
import { apiKeys, merchants } from '@/lib/db/schema';
import { hashApiKey } from '@/lib/api-keys/key-material';

export const DEMO_MERCHANT = {
  id: 'mer_DemoMerchant0000000000',
  name: 'Demo Game Studio',
  email: 'merchant@demo.chargeport.test',
} as const;

export const DEMO_KEYS = {
  test: { id: 'key_DemoTest00000000000000', plaintext: 'cp_test_DemoTestKeyForLocalDevelopment01', mode: 'test', kind: 'secret' },
  live: { id: 'key_DemoLive00000000000000', plaintext: 'cp_live_DemoLiveKeyForLocalDevelopment01', mode: 'live', kind: 'secret' },
  publishableTest: {
    id: 'key_DemoPubTest00000000000',
    plaintext: 'cp_pub_test_DemoPublishableKeyForLocalDev001',
    mode: 'test',
    kind: 'publishable',
  },
} as const;

export async function seedDemoData(): Promise<void> {
  if (process.env.NODE_ENV === 'production') throw new Error('refusing to seed demo data in production');
  const db = getDb();
  await db
    .insert(merchants)
    .values({ ...DEMO_MERCHANT, verifiedAt: new Date() })
    .onConflictDoNothing();
  for (const key of Object.values(DEMO_KEYS)) {
    await db
      .insert(apiKeys)
      .values({
        id: key.id,
        merchantId: DEMO_MERCHANT.id,
        mode: key.mode,
        kind: key.kind,
        name: 'Demo',
        hash: hashApiKey(key.plaintext),
        displayPrefix: key.plaintext.slice(0, key.plaintext.lastIndexOf('_') + 5),
      })
      .onConflictDoNothing();
  }
}
