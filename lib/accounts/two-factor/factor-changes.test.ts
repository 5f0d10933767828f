/**
 * Issue 26, finding N1 ("a stolen session adds its own second factor"): adding or removing a passkey or
 * an authenticator app, renewing recovery codes and setting a first PIN need more than a session; each
 * change is e-mailed to the account; a new factor does not confirm live money moves for
 * FACTOR_COOLING_HOURS. Real PostgreSQL, the server's own WebAuthn verification (software authenticator).
 */
import { eq } from 'drizzle-orm';
import { generate } from 'otplib';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeEach, describe, expect, it } from 'vitest';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { merchantMembers, passkeys, users } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { withdrawFromMerchantWallet } from '@/lib/merchants/withdraw';
import { readOutbox } from '@/lib/notifications/outbox';
import { appError, enrolTotp, hoursAgo, latestCode, newUser, userRow } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { softwareAuthenticator, type SoftwareAuthenticator } from '@/test/software-authenticator';
import { changePin } from '@/lib/accounts/change-pin';
import { hasPin } from '@/lib/accounts/pin-status';
import { requestSecurityCode } from '../request-security-code';
import { isFirstPinPrompt, setFirstPin } from '../set-first-pin';
import { verifyStepUp } from '../step-up';
import { addPasskey } from './add-passkey';
import { listPasskeys, passkeyAssertionOptions, passkeyRegistrationOptions } from './passkeys';
import { removeSecondFactor } from './remove-second-factor';
import { replaceRecoveryCodes } from './replace-recovery-codes';
import { requireSecondFactor, secondFactorReadiness } from './second-factor';
import { startTotpEnrolment } from './totp';
import { turnOnTotp } from './turn-on-totp';

const ORIGIN = process.env.APP_URL!;
const PIN = '739104';
const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
let device: SoftwareAuthenticator;

beforeEach(() => {
  device = softwareAuthenticator(ORIGIN);
});

/** An account with a verified e-mail (what a session has), optionally with a PIN. */
async function account(options: { pin?: string } = {}): Promise<string> {
  const userId = await newUser(options);
  await getDb().update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  return userId;
}

const emailOf = async (userId: string) => (await userRow(userId)).email!;
const subjects = async (userId: string) => readOutbox('email', await emailOf(userId)).map((message) => message.subject);

async function registration(userId: string) {
  return device.register(await passkeyRegistrationOptions({ userId, userName: 'player@example.test' }));
}

async function stepUpAssertion(userId: string): Promise<string> {
  return JSON.stringify(device.assert(await passkeyAssertionOptions({ userId, ceremony: 'step_up' })));
}

/** An app set up (secret issued) and the code that would turn it on. */
async function pendingTotp(userId: string): Promise<string> {
  const { secret } = await startTotpEnrolment({ userId, label: 'test' });
  return generate({ secret });
}

const totpOn = async (userId: string) => (await userRow(userId)).totpEnabledAt !== null;

describe('adding a second factor needs more than a session', () => {
  it('a passkey with the session alone, or a wrong PIN, is refused and nothing is stored', async () => {
    const userId = await account({ pin: PIN });
    expect((await appError(addPasskey({ userId, name: 'Thief', response: await registration(userId), proof: {} }))).code).toBe(
      'step_up_required',
    );
    expect(
      (await appError(addPasskey({ userId, name: 'Thief', response: await registration(userId), proof: { pin: '000000' } }))).code,
    ).toBe('pin_incorrect');
    // An account with a PIN cannot swap it for an e-mail code (a mailbox plus a session).
    expect(
      (await appError(addPasskey({ userId, name: 'Thief', response: await registration(userId), proof: { emailCode: '123456' } }))).code,
    ).toBe('step_up_required');
    expect((await appError(requestSecurityCode({ userId, reason: 'factor_change' }))).code).toBe('invalid_request');
    expect(await listPasskeys(userId)).toHaveLength(0);
  });

  it('an authenticator app with the session alone is refused and stays off', async () => {
    const userId = await account({ pin: PIN });
    const code = await pendingTotp(userId);
    expect((await appError(turnOnTotp({ userId, code, proof: {} }))).code).toBe('step_up_required');
    expect(await totpOn(userId)).toBe(false);
  });

  it('with the PIN, a passkey is added and the account is e-mailed what, when and from where', async () => {
    const userId = await account({ pin: PIN });
    await addPasskey({ userId, name: 'Laptop', response: await registration(userId), proof: { pin: PIN }, ip: '203.0.113.9' });
    expect(await listPasskeys(userId)).toHaveLength(1);
    const [mail] = readOutbox('email', await emailOf(userId));
    expect(mail?.subject).toBe('Chargeport security: a passkey was added');
    expect(mail?.text).toContain('“Laptop”');
    expect(mail?.text).toContain('From: 203.0.113.9');
    expect(mail?.text).toMatch(/When: \d{4}-\d\d-\d\dT/);
    expect(mail?.text).toContain('If it was not');
  });

  it('with an existing passkey (no PIN), an authenticator app is turned on', async () => {
    const userId = await account();
    // The account's first passkey, confirmed by e-mail code (it had neither a PIN nor a passkey).
    await requestSecurityCode({ userId, reason: 'factor_change' });
    await addPasskey({
      userId,
      name: 'Phone',
      response: await registration(userId),
      proof: { emailCode: latestCode(await emailOf(userId)) },
    });
    const code = await pendingTotp(userId);
    // Now it has a passkey: the e-mail code no longer does.
    expect((await appError(requestSecurityCode({ userId, reason: 'factor_change' }))).code).toBe('invalid_request');
    await turnOnTotp({ userId, code, proof: { passkeyResponse: await stepUpAssertion(userId) } });
    expect(await totpOn(userId)).toBe(true);
    expect(await subjects(userId)).toContain('Chargeport security: an authenticator app was turned on');
  });

  it('an account with neither confirms with the e-mailed code: missing, wrong or foreign codes are refused', async () => {
    const userId = await account();
    const code = await pendingTotp(userId);
    expect((await appError(turnOnTotp({ userId, code, proof: {} }))).code).toBe('step_up_required');
    await requestSecurityCode({ userId, reason: 'factor_change', ip: '198.51.100.7' });
    const [sent] = readOutbox('email', await emailOf(userId));
    expect(sent?.text).toContain('add or remove a passkey or an authenticator app');
    expect(sent?.text).toContain('198.51.100.7');
    const emailCode = latestCode(await emailOf(userId));
    const wrong = emailCode === '000000' ? '000001' : '000000';
    expect((await appError(turnOnTotp({ userId, code, proof: { emailCode: wrong } }))).code).toBe('code_incorrect');
    // Another account's code is not this account's.
    const other = await account();
    await requestSecurityCode({ userId: other, reason: 'factor_change' });
    expect((await appError(turnOnTotp({ userId, code, proof: { emailCode: latestCode(await emailOf(other)) } }))).code).toBe(
      'code_incorrect',
    );
    expect(await totpOn(userId)).toBe(false);
    await turnOnTotp({ userId, code, proof: { emailCode } });
    expect(await totpOn(userId)).toBe(true);
  });
});

describe('removing and renewing need the same proof; every change is e-mailed', () => {
  it('a passkey, the app and recovery codes', async () => {
    const userId = await account({ pin: PIN });
    const key = await addPasskey({ userId, name: 'Laptop', response: await registration(userId), proof: { pin: PIN } });
    await turnOnTotp({ userId, code: await pendingTotp(userId), proof: { pin: PIN } });

    expect((await appError(replaceRecoveryCodes({ userId, proof: {} }))).code).toBe('step_up_required');
    expect(await replaceRecoveryCodes({ userId, proof: { pin: PIN } })).toHaveLength(10);

    expect((await appError(removeSecondFactor({ userId, factor: { kind: 'passkey', passkeyId: key.id }, proof: {} }))).code).toBe(
      'step_up_required',
    );
    expect(await listPasskeys(userId)).toHaveLength(1);
    await removeSecondFactor({ userId, factor: { kind: 'passkey', passkeyId: key.id }, proof: { pin: PIN } });
    expect((await appError(removeSecondFactor({ userId, factor: { kind: 'totp' }, proof: { pin: '000000' } }))).code).toBe('pin_incorrect');
    expect(await totpOn(userId)).toBe(true);
    await removeSecondFactor({ userId, factor: { kind: 'totp' }, proof: { pin: PIN } });
    expect(await totpOn(userId)).toBe(false);

    // The changes, and each refused attempt before them (reporting-refusal.ts).
    expect(await subjects(userId)).toEqual([
      'Chargeport security: the authenticator app was removed',
      'Chargeport security: a refused attempt to remove the authenticator app',
      'Chargeport security: a passkey was removed',
      'Chargeport security: a refused attempt to remove a passkey',
      'Chargeport security: new recovery codes',
      'Chargeport security: a refused attempt to renew the recovery codes',
      'Chargeport security: an authenticator app was turned on',
      'Chargeport security: a passkey was added',
    ]);
  });

  it('a PIN change is e-mailed', async () => {
    const userId = await account({ pin: PIN });
    await changePin({ userId, oldPin: PIN, pin: '284615', confirm: '284615', ip: '192.0.2.1' });
    expect(await subjects(userId)).toEqual(['Chargeport security: your PIN was changed']);
  });
});

describe('the first PIN', () => {
  it('the first-login prompt is a sign-in under 15 minutes old, within 15 minutes of the account’s creation', () => {
    const created = new Date('2026-11-27T10:00:00Z');
    const at = (iso: string) => new Date(`2026-11-27T${iso}Z`);
    expect(isFirstPinPrompt({ accountCreatedAt: created, sessionSignedInAt: at('10:02:00'), now: at('10:10:00') })).toBe(true);
    expect(isFirstPinPrompt({ accountCreatedAt: created, sessionSignedInAt: at('10:02:00'), now: at('10:18:00') })).toBe(false);
    expect(isFirstPinPrompt({ accountCreatedAt: created, sessionSignedInAt: at('11:00:00'), now: at('11:01:00') })).toBe(false);
    expect(isFirstPinPrompt({ accountCreatedAt: created, sessionSignedInAt: undefined, now: at('10:01:00') })).toBe(false);
  });

  it('outside the prompt a session alone cannot set it; with the e-mailed code it can; both ways are e-mailed', async () => {
    const userId = await account();
    // An account signed up two days ago, in a session opened now (a later sign-in, or a stolen cookie).
    await getDb()
      .update(users)
      .set({ createdAt: hoursAgo(48) })
      .where(eq(users.id, userId));
    const attempt = (emailCode?: string) =>
      setFirstPin({ userId, pin: PIN, confirm: PIN, sessionSignedInAt: new Date(), emailCode, ip: '203.0.113.5' });
    expect((await appError(attempt())).code).toBe('step_up_required');
    expect(await hasPin(userId)).toBe(false);
    await requestSecurityCode({ userId, reason: 'first_pin' });
    await attempt(latestCode(await emailOf(userId)));
    expect(await hasPin(userId)).toBe(true);
    expect(await subjects(userId)).toContain('Chargeport security: your PIN was set');
    expect((await appError(requestSecurityCode({ userId, reason: 'first_pin' }))).code).toBe('pin_already_set');
  });

  it('in the first-login prompt the session sets it (and the account is told)', async () => {
    const userId = await account();
    await setFirstPin({ userId, pin: PIN, confirm: PIN, sessionSignedInAt: new Date() });
    expect(await hasPin(userId)).toBe(true);
    expect(await subjects(userId)).toEqual(['Chargeport security: your PIN was set']);
  });
});

describe(`a factor younger than FACTOR_COOLING_HOURS (${env().FACTOR_COOLING_HOURS} h) does not confirm live money moves`, () => {
  let merchantId: string;
  let owner: string;

  beforeEach(async () => {
    merchantId = (await newMerchant()).id; // verified: withdrawals need two-factor sign-in
    owner = await account({ pin: PIN });
    await getDb().insert(merchantMembers).values({ merchantId, userId: owner, role: 'owner' });
  });

  const withdraw = (proof: { pin?: string; passkeyResponse?: string }) =>
    withdrawFromMerchantWallet({
      userId: owner,
      merchantId,
      mode: 'live',
      chain: 'POLYGON',
      tokenAddress: USDC.address,
      amount: '1',
      toAddress: privateKeyToAccount(generatePrivateKey()).address,
      ...proof,
    });

  it('a new passkey is refused for a live withdrawal, accepted in test mode, and accepted once the time has passed', async () => {
    await enrolTotp(owner); // an established app: the two-factor requirement is met
    const key = await addPasskey({ userId: owner, name: 'New', response: await registration(owner), proof: { pin: PIN } });
    const refused = await appError(withdraw({ passkeyResponse: await stepUpAssertion(owner) }));
    expect(refused.code).toBe('factor_cooling_down');
    expect(refused.message).toContain(
      new Date(key.createdAt.getTime() + env().FACTOR_COOLING_HOURS * 3_600_000).toISOString().slice(0, 16).replace('T', ' '),
    );
    await verifyStepUp({
      userId: owner,
      proof: { passkeyResponse: await stepUpAssertion(owner) },
      mode: 'test',
      attempt: { action: 'withdrawal', merchantId },
    });
    // The clock moves past the cooling time.
    const later = new Date(Date.now() + (env().FACTOR_COOLING_HOURS + 1) * 3_600_000);
    await verifyStepUp({
      userId: owner,
      proof: { passkeyResponse: await stepUpAssertion(owner) },
      mode: 'live',
      now: later,
      attempt: { action: 'withdrawal', merchantId },
    });
    // Or the passkey is older (backdated): the live withdrawal passes the step-up and goes on.
    await getDb()
      .update(passkeys)
      .set({ createdAt: hoursAgo(env().FACTOR_COOLING_HOURS + 1) })
      .where(eq(passkeys.id, key.id));
    // (The merchant wallet holds nothing: refused for the balance, after the step-up.)
    expect((await appError(withdraw({ passkeyResponse: await stepUpAssertion(owner) }))).code).toBe('insufficient_balance');
  });

  it('requireSecondFactor does not count a new authenticator app in live mode; test mode skips the wait', async () => {
    // What the Balances page says before the form is filled (secondFactorReadiness), then enforces.
    expect(await secondFactorReadiness(owner, { mode: 'live' })).toEqual({ state: 'none' });
    await enrolTotp(owner, { fresh: true });
    const readiness = await secondFactorReadiness(owner, { mode: 'live' });
    expect(readiness.state).toBe('cooling');
    expect(await secondFactorReadiness(owner, { mode: 'test' })).toEqual({ state: 'ready' });
    expect(
      (await appError(requireSecondFactor(owner, 'withdraw', { mode: 'live', attempt: { action: 'withdrawal', merchantId } }))).code,
    ).toBe('factor_cooling_down');
    expect((await appError(withdraw({ pin: PIN }))).code).toBe('factor_cooling_down');
    await requireSecondFactor(owner, 'withdraw', { mode: 'test', attempt: { action: 'withdrawal', merchantId } });
    const later = new Date(Date.now() + (env().FACTOR_COOLING_HOURS + 1) * 3_600_000);
    await requireSecondFactor(owner, 'withdraw', { mode: 'live', now: later, attempt: { action: 'withdrawal', merchantId } });
    await getDb()
      .update(users)
      .set({ totpEnabledAt: hoursAgo(env().FACTOR_COOLING_HOURS + 1) })
      .where(eq(users.id, owner));
    await requireSecondFactor(owner, 'withdraw', { mode: 'live', attempt: { action: 'withdrawal', merchantId } });
  });
});
