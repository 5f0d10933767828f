import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authenticateApiKey } from '@/lib/api-keys/authenticate-api-key';
import { createApiKey } from '@/lib/api-keys/create-api-key';
import { createUser } from '@/lib/accounts/create-user';
import { getDb } from '@/lib/db/client';
import { auditLog, merchantMembers, merchants } from '@/lib/db/schema';
import { readOutbox } from '@/lib/notifications/outbox';
import { uniqueEmail } from '@/test/accounts';
import { findMerchantOfUser } from '@/lib/merchants/find-merchant-of-user';
import { requestBusinessVerification } from '@/lib/merchants/request-business-verification';
import { becomeMerchant } from '@/lib/onboarding/become-merchant';
import { verifyMerchant } from '@/lib/merchants/verify-merchant';

async function newUser(): Promise<{ id: string; email: string }> {
  const email = uniqueEmail('merchant');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  return { id: user.id, email };
}

describe('an account becomes a merchant (spec rules 6–7)', () => {
  it('creates the merchant with the business name, the account as owner, and a working test key at once', async () => {
    const user = await newUser();
    const { merchant, testKey } = await becomeMerchant({ userId: user.id, businessName: '  Pixel Forge  ' });
    expect(merchant).toMatchObject({ name: 'Pixel Forge', email: user.email, verifiedAt: null });
    const [member] = await getDb().select().from(merchantMembers).where(eq(merchantMembers.merchantId, merchant.id));
    expect(member).toMatchObject({ userId: user.id, role: 'owner' });
    expect((await authenticateApiKey(testKey.plaintext)).merchant.id).toBe(merchant.id);
    expect((await findMerchantOfUser(user.id))?.merchant.id).toBe(merchant.id);
  });

  it('no production key before business verification; after support verifies, one can be issued', async () => {
    const user = await newUser();
    const { merchant } = await becomeMerchant({ userId: user.id, businessName: 'Verify Me' });
    await expect(createApiKey({ merchantId: merchant.id, mode: 'live' })).rejects.toMatchObject({ code: 'verification_required' });
    await requestBusinessVerification({ ctx: { userId: user.id, merchantId: merchant.id } });
    const [requested] = await getDb().select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(requested!.verificationRequestedAt).not.toBeNull();
    expect(readOutbox('email', 'support@chargeport.local')[0]?.text).toContain(`merchant verify ${merchant.id}`);
    await verifyMerchant(merchant.id);
    expect((await createApiKey({ merchantId: merchant.id, mode: 'live' })).plaintext).toMatch(/^cp_live_/);
  });

  it('a verification request authorizes its member and commits with its audit row; a viewer changes nothing', async () => {
    const owner = await newUser();
    const { merchant } = await becomeMerchant({ userId: owner.id, businessName: 'Audited Shop' });
    const viewer = await newUser();
    await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: viewer.id, role: 'viewer' });
    await expect(requestBusinessVerification({ ctx: { userId: viewer.id, merchantId: merchant.id } })).rejects.toMatchObject({
      code: 'forbidden',
    });
    const auditOf = () => getDb().select().from(auditLog).where(eq(auditLog.merchantId, merchant.id));
    const [untouched] = await getDb().select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(untouched!.verificationRequestedAt).toBeNull();
    expect(await auditOf()).toHaveLength(0);

    await requestBusinessVerification({ ctx: { userId: owner.id, merchantId: merchant.id, ip: '203.0.113.7' } });
    expect(await auditOf()).toMatchObject([
      { action: 'merchant.request_verification', actorUserId: owner.id, actorRole: 'owner', ip: '203.0.113.7' },
    ]);
  });

  it('refuses a second merchant for the same account, and a bad business name', async () => {
    const user = await newUser();
    await becomeMerchant({ userId: user.id, businessName: 'First' });
    await expect(becomeMerchant({ userId: user.id, businessName: 'Second' })).rejects.toMatchObject({ code: 'account_exists' });
    const other = await newUser();
    await expect(becomeMerchant({ userId: other.id, businessName: 'x' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'businessName',
    });
  });

  it('two simultaneous upgrades of one account make one merchant', async () => {
    const user = await newUser();
    const results = await Promise.allSettled([
      becomeMerchant({ userId: user.id, businessName: 'Race A' }),
      becomeMerchant({ userId: user.id, businessName: 'Race B' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await getDb().select().from(merchantMembers).where(eq(merchantMembers.userId, user.id))).toHaveLength(1);
  });
});
