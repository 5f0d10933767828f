import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadCheckoutView } from '@/lib/charges/checkout-view';
import { getDb } from '@/lib/db/client';
import { auditLog, merchantMembers, merchants } from '@/lib/db/schema';
import { newUser } from '@/test/accounts';
import { callRoute, newMerchant, usdcCharge, type TestMerchant } from '@/test/fixtures';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import { updateMerchantProfile } from './profile';

let merchant: TestMerchant;
let owner: string;
let developer: string;

beforeEach(async () => {
  merchant = await newMerchant();
  owner = await newUser();
  developer = await newUser();
  await getDb()
    .insert(merchantMembers)
    .values([
      { merchantId: merchant.id, userId: owner, role: 'owner' },
      { merchantId: merchant.id, userId: developer, role: 'developer' },
    ]);
});

describe('merchant profile', () => {
  it('an owner sets name, logo and support e-mail; the checkout shows the name and logo; the change is audited', async () => {
    await updateMerchantProfile({
      userId: owner,
      merchantId: merchant.id,
      name: '  Orbit Games ',
      logoUrl: 'https://cdn.orbit.example/logo.png',
      supportEmail: 'Help@Orbit.example',
    });
    const [row] = await getDb().select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(row).toMatchObject({ name: 'Orbit Games', logoUrl: 'https://cdn.orbit.example/logo.png', supportEmail: 'help@orbit.example' });

    const charge = await callRoute(createChargeRoute, { apiKey: merchant.liveKey!, body: usdcCharge() });
    const view = await loadCheckoutView(charge.json.data.chargeId);
    expect(view).toMatchObject({ merchantName: 'Orbit Games', merchantLogoUrl: 'https://cdn.orbit.example/logo.png' });

    const [entry] = await getDb().select().from(auditLog).where(eq(auditLog.merchantId, merchant.id));
    expect(entry).toMatchObject({ action: 'merchant.update_profile', actorUserId: owner });
    expect(entry!.data).toMatchObject({ name: { from: 'Test Studio', to: 'Orbit Games' } });

    // Clearing the logo removes it.
    await updateMerchantProfile({ userId: owner, merchantId: merchant.id, name: 'Orbit Games', logoUrl: '', supportEmail: '' });
    expect((await loadCheckoutView(charge.json.data.chargeId))!.merchantLogoUrl).toBeNull();
  });

  it('refuses bad values with the field named, and developers, changing nothing', async () => {
    const attempt = (fields: { name?: string; logoUrl?: string; supportEmail?: string }, userId = owner) =>
      updateMerchantProfile({ userId, merchantId: merchant.id, name: 'Fine Name', logoUrl: '', supportEmail: '', ...fields });
    await expect(attempt({ logoUrl: 'http://insecure.example/logo.png' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'logoUrl',
    });
    await expect(attempt({ logoUrl: 'javascript:alert(1)' })).rejects.toMatchObject({ param: 'logoUrl' });
    await expect(attempt({ supportEmail: 'nope' })).rejects.toMatchObject({ param: 'supportEmail' });
    await expect(attempt({ name: 'x' })).rejects.toMatchObject({ param: 'name', message: expect.stringMatching(/^Business name/) });
    await expect(attempt({}, developer)).rejects.toMatchObject({ code: 'forbidden' });
    const [row] = await getDb().select().from(merchants).where(eq(merchants.id, merchant.id));
    expect(row!.name).toBe('Test Studio');
  });
});
