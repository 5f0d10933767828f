/**
 * Without an SMS provider (SMS_PROVIDER=none, production's default) phone linking and PIN reset by SMS
 * are off: they refuse before a code is issued or anything is sent; unlinking still works.
 */
import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getDb } from '@/lib/db/client';
import { users, verificationCodes } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { log } from '@/lib/log';
import { readOutbox } from '@/lib/notifications/outbox';
import { sendSms } from '@/lib/notifications/send-sms';
import { appError, newUser, randomMobile, userRow } from '@/test/accounts';
import { startPhoneLink, unlinkPhone } from './phone';
import { announcePhoneLinking, phoneLinkingEnabled } from './phone-linking-enabled';
import { requestPinResetCode } from './request-pin-reset-code';

const PIN = '258036';

function setSmsProvider(value: string | undefined): void {
  if (value === undefined) delete process.env.SMS_PROVIDER;
  else process.env.SMS_PROVIDER = value;
  resetEnvCache();
}

const codesFor = (target: string, purpose: 'link_phone' | 'reset_pin') =>
  getDb()
    .select({ id: verificationCodes.id })
    .from(verificationCodes)
    .where(and(eq(verificationCodes.target, target), eq(verificationCodes.purpose, purpose)));

afterEach(() => {
  setSmsProvider('dev');
  vi.restoreAllMocks();
});

describe('phone linking without an SMS provider', () => {
  it('is on with the dev outbox or Twilio, off with SMS_PROVIDER=none', () => {
    setSmsProvider('dev');
    expect(phoneLinkingEnabled()).toBe(true);
    setSmsProvider('none');
    expect(phoneLinkingEnabled()).toBe(false);
  });

  it('the server says so once at start, with how to turn it on; with a provider it says nothing', () => {
    const warn = vi.spyOn(log, 'warn').mockImplementation(() => {});
    setSmsProvider('dev');
    announcePhoneLinking();
    expect(warn).not.toHaveBeenCalled();
    setSmsProvider('none');
    announcePhoneLinking();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatch(
      /^Phone linking is off on this server: .* Set SMS_PROVIDER=twilio and TWILIO_\* to turn it on\.$/,
    );
  });

  it('refuses to start a link before issuing a code or sending anything', async () => {
    const userId = await newUser();
    const phone = randomMobile();
    setSmsProvider('none');
    const error = await appError(startPhoneLink({ userId, phone }));
    expect(error.code).toBe('service_unavailable');
    expect(error.message).toMatch(/^Phone linking is off on this server: it has no SMS provider configured/);
    expect(await codesFor(phone, 'link_phone')).toEqual([]);
    expect(readOutbox('sms', phone)).toEqual([]);
    expect((await userRow(userId)).phoneE164).toBeNull();
    // The same request with a provider goes through (the refusal above is the provider, nothing else).
    setSmsProvider('dev');
    await startPhoneLink({ userId, phone });
    expect(await codesFor(phone, 'link_phone')).toHaveLength(1);
  });

  it('a phone linked earlier: PIN reset by SMS refuses and sends nothing, unlinking still works', async () => {
    const userId = await newUser({ pin: PIN });
    const phone = randomMobile();
    await getDb().update(users).set({ phoneE164: phone, phoneVerifiedAt: new Date() }).where(eq(users.id, userId));
    setSmsProvider('none');
    const error = await appError(requestPinResetCode({ userId }));
    expect(error.code).toBe('service_unavailable');
    expect(await codesFor(phone, 'reset_pin')).toEqual([]);
    expect(readOutbox('sms', phone)).toEqual([]);

    await unlinkPhone({ userId, pin: PIN });
    expect((await userRow(userId)).phoneE164).toBeNull();
  });

  it('sendSms itself refuses with SMS_PROVIDER=none (nothing reaches the outbox)', async () => {
    const phone = randomMobile();
    setSmsProvider('none');
    await expect(sendSms({ to: phone, text: 'hello' })).rejects.toThrow(/SMS_PROVIDER=none/);
    expect(readOutbox('sms', phone)).toEqual([]);
  });
});
