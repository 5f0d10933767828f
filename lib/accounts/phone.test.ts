import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { users, verificationCodes } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { readOutbox } from '@/lib/notifications/outbox';
import { appError, lastSmsCode, newUser, randomMobile, userRow } from '@/test/accounts';
import { confirmPhoneLink, normalisePhone, startPhoneLink, unlinkPhone } from './phone';
import { PHONE_EXAMPLE } from './phone-example';

const PIN = '482916';
const WRONG = '519273';

describe('normalisePhone', () => {
  it.each([
    ['+33 6 12 34 56 78', undefined, '+33612345678'],
    ['+33612345678', undefined, '+33612345678'],
    ['06 12 34 56 78', 'FR', '+33612345678'],
    ['06 12 34 56 78', 'fr', '+33612345678'],
    ['(201) 555-0123', 'US', '+12015550123'],
    ['+1 415-555-2671', 'FR', '+14155552671'],
    ['+49 151 23456789', undefined, '+4915123456789'],
    ['+44 7911 123456', undefined, '+447911123456'],
    // The form's own example, and the ways people write a US number (issue 19).
    [PHONE_EXAMPLE, undefined, '+14155550100'],
    ['+1 (415) 555-0100', undefined, '+14155550100'],
    ['(415) 555-0100', 'US', '+14155550100'],
    ['415.555.0100', 'us', '+14155550100'],
    ['+1 415 555 0100', 'GB', '+14155550100'], // the +code wins over the chosen country
    ['001 415 555 0100', 'FR', '+14155550100'], // dialled from France with the international prefix
    ['07911 123456', 'GB', '+447911123456'],
  ])('%s (default country %s) → %s', (input, country, e164) => {
    expect(normalisePhone(input, country)).toBe(e164);
  });

  it.each([
    ['', undefined],
    ['phone', undefined],
    ['12345', undefined],
    ['06 12 34 56 78', undefined], // national format without a country
    ['(415) 555-0100', undefined], // the same: no +code and no country chosen
    ['+44 7700 900123', undefined], // the old placeholder: a drama number, in no allocated range
    ['+1 555 0100', undefined], // too short
    ['+1 211 555 0123', undefined], // no such area code
    ['+33 7 00 00 00 00', undefined], // right length, unassigned range
    ['+33 6 12 34 56 78 9', undefined], // too long
    ['+999 1234567', undefined], // no such country code
    ['+33 1 23 45 67 89', undefined], // a landline: no SMS
    ['+33 8 00 12 34 56', undefined], // toll free: no SMS
    ['+33 6 12 34 56 78 ext. 2', undefined], // an extension cannot receive an SMS
  ])('refuses %j with invalid_request on phone', (input, country) => {
    let error: unknown;
    try {
      normalisePhone(input, country);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(AppError);
    expect([(error as AppError).code, (error as AppError).status, (error as AppError).param]).toEqual(['invalid_request', 400, 'phone']);
    expect((error as AppError).message).toMatch(/phone number|text messages/);
  });

  it('refuses an unknown default country', () => {
    expect(() => normalisePhone('06 12 34 56 78', 'XX')).toThrow(
      expect.objectContaining({ code: 'invalid_request', param: 'defaultCountry' }),
    );
  });
});

describe('linking a phone', () => {
  it('sends a code to the number in E.164 and links it once confirmed', async () => {
    const userId = await newUser();
    const phone = randomMobile();
    const spaced = `${phone.slice(0, 3)} ${phone.slice(3, 4)} ${phone.slice(4, 6)} ${phone.slice(6, 8)} ${phone.slice(8, 10)} ${phone.slice(10)}`;
    const started = await startPhoneLink({ userId, phone: spaced });
    expect(started.phoneE164).toBe(phone);
    const [sms] = readOutbox('sms', phone);
    expect(sms?.text).toMatch(/^Your Chargeport code is \d{6}\. It expires in 10 minutes\.$/);
    const [stored] = await getDb().select().from(verificationCodes).where(eq(verificationCodes.target, phone));
    expect([stored?.purpose, stored?.userId]).toEqual(['link_phone', userId]);

    const code = lastSmsCode(phone);
    const wrong = code === '000000' ? '000001' : '000000';
    expect((await appError(confirmPhoneLink({ userId, phone, code: wrong }))).code).toBe('code_incorrect');
    expect((await userRow(userId)).phoneE164).toBeNull();

    expect(await confirmPhoneLink({ userId, phone: spaced, code })).toEqual({ phoneE164: phone });
    const row = await userRow(userId);
    expect(row.phoneE164).toBe(phone);
    expect(row.phoneVerifiedAt).toBeInstanceOf(Date);
    expect((await appError(confirmPhoneLink({ userId, phone, code }))).code).toBe('code_expired');
  });

  it('refuses invalid numbers before sending anything', async () => {
    const userId = await newUser();
    for (const phone of ['12', '+33 7 00 00 00 00', '+33 1 23 45 67 89']) {
      const error = await appError(startPhoneLink({ userId, phone }));
      expect([error.code, error.param]).toEqual(['invalid_request', 'phone']);
    }
    expect(readOutbox('sms', '+33700000000')).toEqual([]);
  });

  it('throttles codes to one number (60 s between two)', async () => {
    const userId = await newUser();
    const phone = randomMobile();
    await startPhoneLink({ userId, phone });
    const error = await appError(startPhoneLink({ userId, phone }));
    expect([error.code, error.status]).toEqual(['rate_limited', 429]);
    expect(error.headers?.['retry-after']).toMatch(/^\d+$/);
  });

  it('with a PIN set, linking needs that PIN (the phone can reset it), counted like any PIN entry', async () => {
    const userId = await newUser({ pin: PIN });
    const phone = randomMobile();
    expect((await appError(startPhoneLink({ userId, phone }))).param).toBe('pin');
    expect((await appError(startPhoneLink({ userId, phone, pin: WRONG }))).code).toBe('pin_incorrect');
    expect((await userRow(userId)).pinFailedAttempts).toBe(1);
    expect(readOutbox('sms', phone)).toEqual([]);
    await startPhoneLink({ userId, phone, pin: PIN });
    await confirmPhoneLink({ userId, phone, code: lastSmsCode(phone) });
    expect((await userRow(userId)).phoneE164).toBe(phone);
  });

  it('a number linked to another account is refused (phone_in_use), at the start and at confirmation', async () => {
    const owner = await newUser();
    const phone = randomMobile();
    await startPhoneLink({ userId: owner, phone });
    await confirmPhoneLink({ userId: owner, phone, code: lastSmsCode(phone) });

    const other = await newUser();
    const error = await appError(startPhoneLink({ userId: other, phone }));
    expect([error.code, error.status, error.param]).toEqual(['phone_in_use', 409, 'phone']);

    // Linked to someone else between start and confirmation.
    const late = randomMobile();
    await startPhoneLink({ userId: other, phone: late });
    await getDb().update(users).set({ phoneE164: late, phoneVerifiedAt: new Date() }).where(eq(users.id, owner));
    expect((await appError(confirmPhoneLink({ userId: other, phone: late, code: lastSmsCode(late) }))).code).toBe('phone_in_use');
    expect((await userRow(other)).phoneE164).toBeNull();
  });

  it('relinking the number already linked is refused; another number replaces it', async () => {
    const userId = await newUser();
    const first = randomMobile();
    await startPhoneLink({ userId, phone: first });
    await confirmPhoneLink({ userId, phone: first, code: lastSmsCode(first) });
    expect((await appError(startPhoneLink({ userId, phone: first }))).param).toBe('phone');
    const second = randomMobile();
    await startPhoneLink({ userId, phone: second });
    await confirmPhoneLink({ userId, phone: second, code: lastSmsCode(second) });
    expect((await userRow(userId)).phoneE164).toBe(second);
  });

  it('a code sent for another account does not link the number to this one', async () => {
    const starter = await newUser();
    const intruder = await newUser();
    const phone = randomMobile();
    await startPhoneLink({ userId: starter, phone });
    expect((await appError(confirmPhoneLink({ userId: intruder, phone, code: lastSmsCode(phone) }))).code).toBe('code_incorrect');
    expect((await userRow(intruder)).phoneE164).toBeNull();
  });
});

describe('unlinkPhone', () => {
  it('needs the PIN', async () => {
    const userId = await newUser({ pin: PIN });
    const phone = randomMobile();
    await startPhoneLink({ userId, phone, pin: PIN });
    await confirmPhoneLink({ userId, phone, code: lastSmsCode(phone) });

    expect((await appError(unlinkPhone({ userId, pin: '' }))).param).toBe('pin');
    expect((await appError(unlinkPhone({ userId, pin: WRONG }))).code).toBe('pin_incorrect');
    expect((await userRow(userId)).phoneE164).toBe(phone);

    await unlinkPhone({ userId, pin: PIN });
    const row = await userRow(userId);
    expect([row.phoneE164, row.phoneVerifiedAt, row.pinFailedAttempts]).toEqual([null, null, 0]);
    expect((await appError(unlinkPhone({ userId, pin: PIN }))).code).toBe('phone_not_linked');
  });

  it('without a PIN set, the user must set one first', async () => {
    const userId = await newUser();
    const phone = randomMobile();
    await startPhoneLink({ userId, phone });
    await confirmPhoneLink({ userId, phone, code: lastSmsCode(phone) });
    const error = await appError(unlinkPhone({ userId, pin: PIN }));
    expect(error.code).toBe('pin_not_set');
    expect((await userRow(userId)).phoneE164).toBe(phone);
  });
});
