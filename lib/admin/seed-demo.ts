/**
 * Development seed: a verified demo merchant with fixed, documented keys, so the README's curl
 * examples work verbatim against `npm run dev`. Never run in production (the launcher only calls it
 * for `dev`, and it refuses when NODE_ENV is production), nor into a database that is not on this
 * machine unless SEED_DEMO=true (demo-seed-refusal.ts): the keys are public.
 */
import { eq } from 'drizzle-orm';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { createCharge } from '@/lib/charges/create-charge';
import { getDb } from '@/lib/db/client';
import { env } from '@/lib/env';
import { apiKeys, merchantMembers, merchants } from '@/lib/db/schema';
import { hashApiKey } from '@/lib/api-keys/key-material';
import { hasPin } from '@/lib/accounts/pin-status';
import { setPin } from '@/lib/accounts/set-pin';
import { createUser } from '@/lib/accounts/create-user';
import { findUserByEmail } from '@/lib/accounts/find-user';
import { listWallets, type WalletView } from '@/lib/wallets/list-wallets';
import { demoSeedRefusal } from '@/lib/merchants/demo-seed-refusal';

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

/** Sign in with e-mail codes from the dev mailbox; PINs are set already (the owner's confirms contract and rule changes). */
export const DEMO_PEOPLE = {
  owner: { email: 'owner@demo.chargeport.test', pin: '135790' },
  consumer: { email: 'player@demo.chargeport.test', pin: '246813' },
} as const;

export interface DemoSeed {
  consumerWallets: WalletView[];
}

export async function seedDemoData(): Promise<DemoSeed> {
  if (process.env.NODE_ENV === 'production') throw new Error('refusing to seed demo data in production');
  const refusal = demoSeedRefusal({ databaseUrl: env().DATABASE_URL, seedDemo: env().SEED_DEMO });
  if (refusal) throw new Error(refusal);
  const db = getDb();
  await db
    .insert(merchants)
    .values({ ...DEMO_MERCHANT, verifiedAt: new Date() })
    .onConflictDoNothing();
  const appOrigin = new URL(env().APP_URL).origin;
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
        // The demo shop (/examples/pay) runs on this app's origin and returns buyers there.
        ...(key.kind === 'publishable' ? { allowedOrigins: [appOrigin], allowedRedirectOrigins: [appOrigin] } : {}),
      })
      .onConflictDoNothing();
  }
  const owner = await ensureDemoUser(DEMO_PEOPLE.owner.email);
  await db.insert(merchantMembers).values({ merchantId: DEMO_MERCHANT.id, userId: owner, role: 'owner' }).onConflictDoNothing();
  if (!(await hasPin(owner))) await setPin({ userId: owner, pin: DEMO_PEOPLE.owner.pin, confirm: DEMO_PEOPLE.owner.pin });
  await ensureMerchantWallets(db, DEMO_MERCHANT.id);
  const consumer = await ensureDemoUser(DEMO_PEOPLE.consumer.email);
  if (!(await hasPin(consumer))) await setPin({ userId: consumer, pin: DEMO_PEOPLE.consumer.pin, confirm: DEMO_PEOPLE.consumer.pin });
  return { consumerWallets: await listWallets(consumer) };
}

/** A fresh live USDC charge of the demo merchant on (local) Polygon, for the newcomer to pay at once. */
/** The demo charge the launcher prints: paid or canceled, the checkout sends the payer back to the app's home page. */
export async function createDemoCharge(appUrl: string): Promise<{ chargeId: string; paymentUrl: string }> {
  const db = getDb();
  const [merchant] = await db.select().from(merchants).where(eq(merchants.id, DEMO_MERCHANT.id));
  const [apiKey] = await db.select().from(apiKeys).where(eq(apiKeys.id, DEMO_KEYS.live.id));
  return createCharge({
    ctx: { merchant: merchant!, apiKey: apiKey!, actor: 'system:dev-seed', requestId: 'dev-seed' },
    input: {
      chargeData: {
        symbol: 'USDC',
        chain: 'POLYGON',
        tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        items: [{ name: 'Starter gem pack', amount: '4.99', quantity: 1 }],
        successUrl: `${appUrl}/?demo_charge=paid`,
        cancelUrl: `${appUrl}/?demo_charge=canceled`,
      },
    },
  });
}

async function ensureDemoUser(email: string): Promise<string> {
  const existing = await findUserByEmail(email);
  if (existing) return existing.id;
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  return user.id;
}
