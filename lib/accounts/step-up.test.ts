/**
 * Issue 14, "money and ownership need more than a session": each protection below fails its test if
 * it is removed. Refusals are checked before anything is written (no key, no invitation, no endpoint).
 */
import { and, eq } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeEach, describe, expect, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { apiKeys, merchantInvitations, merchantMembers, webhookEndpoints } from '@/lib/db/schema';
import { createKeyForMember } from '@/lib/api-keys/create-key-for-member';
import { changeMemberRole } from '@/lib/merchants/change-member-role';
import { inviteMember } from '@/lib/merchants/invite-member';
import { withdrawalHeldUntil } from '@/lib/merchants/withdrawal-hold';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { readOutbox } from '@/lib/notifications/outbox';
import { createWebhookEndpointForMember } from '@/lib/merchants/webhooks-for-member';
import { appError, enrolTotp, newUser, uniqueEmail, userRow } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { verifySecondFactor } from './two-factor/second-factor';
import { renewRecoveryCodes } from './two-factor/recovery-codes';

const PIN = '739104';
const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
let merchantId: string;
let owner: string;
let ownerEmail: string;

async function seat(userId: string, role: 'owner' | 'admin' | 'developer', ownerSince: Date | null = null) {
  await getDb().insert(merchantMembers).values({ merchantId, userId, role, ownerSince });
}

beforeEach(async () => {
  merchantId = (await newMerchant()).id; // verified
  owner = await newUser({ pin: PIN });
  ownerEmail = (await userRow(owner)).email!;
  await seat(owner, 'owner');
});

const withdraw = (userId: string, proof: { pin?: string } = { pin: PIN }) =>
  withdrawFromMerchantWallet({
    userId,
    merchantId,
    mode: 'live',
    chain: 'POLYGON',
    tokenAddress: USDC.address,
    amount: '1',
    toAddress: privateKeyToAccount(generatePrivateKey()).address,
    ...proof,
  });

describe('step-up and two-factor for money and ownership', () => {
  it('withdrawals of a verified merchant need two-factor sign-in, then the PIN', async () => {
    expect((await appError(withdraw(owner))).code).toBe('two_factor_required');
    await enrolTotp(owner);
    expect((await appError(withdraw(owner, {}))).code).toBe('step_up_required');
    expect((await appError(withdraw(owner, { pin: '000000' }))).code).toBe('pin_incorrect');
  });

  it('an owner seated less than OWNER_WITHDRAWAL_HOLD_HOURS ago is held, and the page can show until when', async () => {
    const newcomer = await newUser({ pin: PIN });
    await enrolTotp(newcomer);
    const since = new Date(Date.now() - 3_600_000);
    await seat(newcomer, 'owner', since);
    const error = await appError(withdraw(newcomer));
    expect(error.code).toBe('withdrawal_held');
    expect((await withdrawalHeldUntil(getDb(), { merchantId, userId: newcomer }))?.getTime()).toBe(since.getTime() + 48 * 3_600_000);
    // The founding owner (no ownerSince) is not held.
    expect(await withdrawalHeldUntil(getDb(), { merchantId, userId: owner })).toBeNull();
  });

  it('inviting an owner or admin needs the PIN; owners are e-mailed; other roles need none', async () => {
    const invitations = () => getDb().select().from(merchantInvitations).where(eq(merchantInvitations.merchantId, merchantId));
    expect((await appError(inviteMember({ userId: owner, merchantId, email: uniqueEmail(), role: 'owner' }))).code).toBe(
      'step_up_required',
    );
    expect(
      (await appError(inviteMember({ userId: owner, merchantId, email: uniqueEmail(), role: 'admin', stepUp: { pin: '000000' } }))).code,
    ).toBe('pin_incorrect');
    expect(await invitations()).toHaveLength(0);
    await inviteMember({ userId: owner, merchantId, email: uniqueEmail(), role: 'developer' });
    await inviteMember({ userId: owner, merchantId, email: uniqueEmail(), role: 'admin', stepUp: { pin: PIN } });
    expect(await invitations()).toHaveLength(2);
    expect(readOutbox('email', ownerEmail).some((message) => /admin/i.test(`${message.subject} ${message.text}`))).toBe(true);
  });

  it('promoting to admin or owner needs the PIN; demoting does not', async () => {
    const member = await newUser();
    await seat(member, 'developer');
    expect((await appError(changeMemberRole({ userId: owner, merchantId, memberUserId: member, role: 'admin' }))).code).toBe(
      'step_up_required',
    );
    await changeMemberRole({ userId: owner, merchantId, memberUserId: member, role: 'admin', stepUp: { pin: PIN } });
    await changeMemberRole({ userId: owner, merchantId, memberUserId: member, role: 'developer' });
    const [row] = await getDb()
      .select({ role: merchantMembers.role })
      .from(merchantMembers)
      .where(and(eq(merchantMembers.merchantId, merchantId), eq(merchantMembers.userId, member)));
    expect(row!.role).toBe('developer');
  });

  it('production keys need two-factor sign-in and a step-up; test keys neither; owners are e-mailed', async () => {
    const liveKeys = () =>
      getDb()
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.merchantId, merchantId), eq(apiKeys.mode, 'live'), eq(apiKeys.name, 'Prod')));
    const create = (stepUp?: { pin: string }) =>
      createKeyForMember({ userId: owner, merchantId, mode: 'live', kind: 'secret', name: 'Prod', stepUp });
    expect((await appError(create({ pin: PIN }))).code).toBe('two_factor_required');
    await enrolTotp(owner);
    expect((await appError(create())).code).toBe('step_up_required');
    expect(await liveKeys()).toHaveLength(0);
    await create({ pin: PIN });
    expect(await liveKeys()).toHaveLength(1);
    expect(readOutbox('email', ownerEmail).some((message) => message.text.includes('Prod'))).toBe(true);
    await createKeyForMember({ userId: owner, merchantId, mode: 'test', kind: 'secret', name: 'Test' });
  });

  it('an unverified merchant is refused production keys before the PIN is asked (no PIN attempt spent)', async () => {
    merchantId = (await newMerchant({ verified: false })).id;
    const founder = await newUser({ pin: PIN });
    await seat(founder, 'owner');
    await enrolTotp(founder);
    expect(
      (
        await appError(
          createKeyForMember({ userId: founder, merchantId, mode: 'live', kind: 'secret', name: 'Prod', stepUp: { pin: '000000' } }),
        )
      ).code,
    ).toBe('verification_required');
    expect((await userRow(founder)).pinFailedAttempts).toBe(0);
  });

  it('live webhook endpoint changes need a step-up; a mistyped URL is refused first; test mode needs none', async () => {
    const input = { url: 'https://hooks.example.com/chargeport', eventTypes: ['*'] };
    const endpoints = () => getDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, merchantId));
    expect((await appError(createWebhookEndpointForMember({ userId: owner, merchantId, mode: 'live', input }))).code).toBe(
      'step_up_required',
    );
    const badUrl = await appError(
      createWebhookEndpointForMember({
        userId: owner,
        merchantId,
        mode: 'live',
        input: { ...input, url: 'http://x' },
        stepUp: { pin: '000000' },
      }),
    );
    expect(badUrl.code).not.toBe('pin_incorrect');
    expect(await endpoints()).toHaveLength(0);
    const coOwner = await newUser();
    await seat(coOwner, 'owner');
    const coOwnerMails = async () =>
      readOutbox('email', (await userRow(coOwner)).email!).filter((mail) => /live webhook endpoint created/.test(mail.subject ?? ''));
    await createWebhookEndpointForMember({ userId: owner, merchantId, mode: 'live', input, stepUp: { pin: PIN } });
    // Every owner hears of a live endpoint change, not only the one who made it.
    expect(await coOwnerMails()).toHaveLength(1);
    await createWebhookEndpointForMember({ userId: owner, merchantId, mode: 'test', input });
    expect(await coOwnerMails()).toHaveLength(1);
    expect(await endpoints()).toHaveLength(2);
  });
});

describe('two-factor sign-in', () => {
  it('an authenticator code passes; a wrong one or a reused one does not; recovery codes work once', async () => {
    const { code } = await enrolTotp(owner);
    expect((await appError(verifySecondFactor(owner, { method: 'totp', code: '000000' }))).code).toBe('code_incorrect');
    const [recovery] = await renewRecoveryCodes(owner);
    await verifySecondFactor(owner, { method: 'recovery', code: recovery! });
    expect((await appError(verifySecondFactor(owner, { method: 'recovery', code: recovery! }))).code).toBe('code_incorrect');
    // The enrolment consumed the current code: a replay inside its window is refused.
    expect((await appError(verifySecondFactor(owner, { method: 'totp', code: await code() }))).code).toBe('code_incorrect');
  });
});
