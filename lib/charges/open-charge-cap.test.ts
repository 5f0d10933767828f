/**
 * Issue 14, reworked in issue 27: open charges created with publishable keys are capped per merchant and
 * mode (a leaked browser key cannot fill the tables); secret keys have no open cap (they are rate-limited
 * per key). The cap reads a trigger-kept counter, so it must follow every status change whoever writes it.
 * A refusal stores nothing.
 */
import { and, count, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { charges, openChargeCounts } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { appError } from '@/test/accounts';
import { createTestCharge, newMerchant, newPublishableKey, storedCounts, testCharge } from '@/test/fixtures';

afterEach(() => {
  delete process.env.MAX_OPEN_PUBLISHABLE_CHARGES_PER_MERCHANT;
  resetEnvCache();
});

async function publishableOpenCounter(merchantId: string): Promise<number> {
  const [row] = await getDb()
    .select({ n: openChargeCounts.publishableOpen })
    .from(openChargeCounts)
    .where(and(eq(openChargeCounts.merchantId, merchantId), eq(openChargeCounts.mode, 'test')));
  return row?.n ?? 0;
}

async function pendingPublishableCharges(merchantId: string): Promise<number> {
  const [row] = await getDb()
    .select({ n: count() })
    .from(charges)
    .where(and(eq(charges.merchantId, merchantId), eq(charges.viaPublishableKey, true), eq(charges.status, 'pending')));
  return row!.n;
}

describe('open-charge caps', () => {
  it('publishable keys stop at their cap → 429 open_charge_limit, nothing stored; secret keys go on past it', async () => {
    process.env.MAX_OPEN_PUBLISHABLE_CHARGES_PER_MERCHANT = '2';
    resetEnvCache();
    const merchant = await newMerchant();
    const publishable = await newPublishableKey(merchant.id);
    const create = (apiKey: string) => createTestCharge({ apiKey, body: testCharge() });

    await create(publishable);
    await create(publishable);
    const refused = await appError(create(publishable));
    expect(refused).toMatchObject({ code: 'open_charge_limit', status: 429, headers: { 'retry-after': '60' } });
    expect((await storedCounts(merchant.id)).charges).toBe(2);

    // The merchant's own server is not held by its browser key's cap, nor by any count of open charges.
    for (let i = 0; i < 4; i++) await create(merchant.testKey);
    expect((await storedCounts(merchant.id)).charges).toBe(6);
    expect(await publishableOpenCounter(merchant.id)).toBe(2);
  });

  it('the counter follows every status change, whoever writes it: a charge leaving pending frees its place', async () => {
    process.env.MAX_OPEN_PUBLISHABLE_CHARGES_PER_MERCHANT = '3';
    resetEnvCache();
    const merchant = await newMerchant();
    const publishable = await newPublishableKey(merchant.id);
    const create = () => createTestCharge({ apiKey: publishable, body: testCharge() });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create()).chargeId);
    expect(await appError(create())).toMatchObject({ code: 'open_charge_limit' });

    // Expiry, cancel and payment each move a charge out of pending (plain UPDATEs: the trigger, not the verbs, counts).
    await getDb().update(charges).set({ status: 'expired' }).where(eq(charges.id, ids[0]!));
    await getDb().update(charges).set({ status: 'canceled' }).where(eq(charges.id, ids[1]!));
    await getDb().update(charges).set({ status: 'processing' }).where(eq(charges.id, ids[2]!));
    expect(await publishableOpenCounter(merchant.id)).toBe(0);

    for (let i = 0; i < 3; i++) await create();
    expect(await appError(create())).toMatchObject({ code: 'open_charge_limit' });
    // A status write that stays outside pending changes nothing; a deleted pending charge is uncounted.
    await getDb().update(charges).set({ status: 'succeeded' }).where(eq(charges.id, ids[2]!));
    const [newest] = await getDb()
      .select({ id: charges.id })
      .from(charges)
      .where(and(eq(charges.merchantId, merchant.id), eq(charges.status, 'pending')))
      .limit(1);
    await getDb().execute(sql`delete from charge_events where charge_id = ${newest!.id}`);
    await getDb().execute(sql`delete from deposit_addresses where charge_id = ${newest!.id}`);
    await getDb().execute(sql`delete from webhook_events where charge_id = ${newest!.id}`);
    await getDb().delete(charges).where(eq(charges.id, newest!.id));
    expect(await publishableOpenCounter(merchant.id)).toBe(await pendingPublishableCharges(merchant.id));
    expect(await publishableOpenCounter(merchant.id)).toBe(2);
  });

  it('secret-key charges never touch the counter', async () => {
    const merchant = await newMerchant();
    for (let i = 0; i < 3; i++) await createTestCharge({ apiKey: merchant.testKey, body: testCharge() });
    const [row] = await getDb().select().from(openChargeCounts).where(eq(openChargeCounts.merchantId, merchant.id));
    expect(row).toBeUndefined();
  });
});
