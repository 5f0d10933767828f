import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadCheckoutView } from '@/lib/charges/checkout-view';
import { getDb } from '@/lib/db/client';
import { auditLog, merchantMembers, merchants } from '@/lib/db/schema';
import { appError, enrolTotp, newUser } from '@/test/accounts';
import { createTestCharge, newMerchant, type TestMerchant, usdcCharge } from '@/test/fixtures';
import { createKeyForMember } from '@/lib/api-keys/create-key-for-member';
import { readOutbox } from '@/lib/notifications/outbox';
import { updateMerchantProfile } from './profile';
import { verifyMerchant } from './verify-merchant';

let merchant: TestMerchant;
let owner: string;
let developer: string;

beforeEach(async () => {
  merchant = await newMerchant();
  owner = await newUser({ pin: '739104' });
  await enrolTotp(owner);
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

    const charge = await createTestCharge({ apiKey: merchant.liveKey!, body: usdcCharge() });
    const view = await loadCheckoutView(charge.chargeId);
    expect(view).toMatchObject({ merchantName: 'Orbit Games', merchantLogoUrl: 'https://cdn.orbit.example/logo.png' });

    const [entry] = await getDb().select().from(auditLog).where(eq(auditLog.merchantId, merchant.id));
    expect(entry).toMatchObject({ action: 'merchant.update_profile', actorUserId: owner });
    expect(entry!.data).toMatchObject({ name: { from: 'Test Studio', to: 'Orbit Games' } });

    // Clearing the logo removes it.
    await updateMerchantProfile({ userId: owner, merchantId: merchant.id, name: 'Orbit Games', logoUrl: '', supportEmail: '' });
    expect((await loadCheckoutView(charge.chargeId))!.merchantLogoUrl).toBeNull();
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

describe('renaming a verified merchant flags it for re-review', () => {
  const rename = (name: string, userId = owner) =>
    updateMerchantProfile({ userId, merchantId: merchant.id, name, logoUrl: '', supportEmail: '' });
  const row = async () => (await getDb().select().from(merchants).where(eq(merchants.id, merchant.id)))[0]!;

  it('no new live key and no direct transfer until support re-verifies; existing live keys keep working', async () => {
    await rename('Renamed Studio');
    expect((await row()).reviewRequiredAt).toBeInstanceOf(Date);
    expect(readOutbox('email', 'support@chargeport.local').some((mail) => mail.text.includes(`merchant verify ${merchant.id}`))).toBe(true);
    const [entry] = await getDb().select().from(auditLog).where(eq(auditLog.merchantId, merchant.id));
    expect(entry!.data).toMatchObject({ name: { from: 'Test Studio', to: 'Renamed Studio' }, reviewRequired: true });

    await expect(
      createKeyForMember({ userId: owner, merchantId: merchant.id, mode: 'live', kind: 'secret', name: 'New', stepUp: { pin: '739104' } }),
    ).rejects.toMatchObject({
      code: 'verification_required',
      message: expect.stringContaining('name changed'),
    });
    const direct = await appError(
      createTestCharge({
        apiKey: merchant.liveKey!,
        body: usdcCharge({ toAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }, { isDirectTransfer: true }),
      }),
    );
    expect(direct).toMatchObject({ code: 'verification_required', param: 'isDirectTransfer', status: 403 });
    // The live integration does not stop: the existing key still creates charges.
    await expect(createTestCharge({ apiKey: merchant.liveKey!, body: usdcCharge() })).resolves.toMatchObject({ charge: { mode: 'live' } });

    await verifyMerchant(merchant.id);
    expect((await row()).reviewRequiredAt).toBeNull();
    await expect(
      createKeyForMember({ userId: owner, merchantId: merchant.id, mode: 'live', kind: 'secret', name: 'New', stepUp: { pin: '739104' } }),
    ).resolves.toMatchObject({
      plaintext: expect.stringMatching(/^cp_live_/),
    });
  });

  it('other profile changes, and renaming a merchant that is not verified, flag nothing', async () => {
    await updateMerchantProfile({
      userId: owner,
      merchantId: merchant.id,
      name: 'Test Studio',
      logoUrl: 'https://cdn.example/l.png',
      supportEmail: '',
    });
    expect((await row()).reviewRequiredAt).toBeNull();
    await getDb().update(merchants).set({ verifiedAt: null }).where(eq(merchants.id, merchant.id));
    await rename('Still Unverified');
    expect((await row()).reviewRequiredAt).toBeNull();
  });

  it('names are stored without bidi, control or invisible characters', async () => {
    await rename('\u202EsemaG\u202C Orbit\u200B\n');
    expect((await row()).name).toBe('semaG Orbit');
    await expect(rename('\u202E\u200F')).rejects.toMatchObject({ code: 'invalid_request', param: 'name' });
  });
});
