/**
 * The optional linked phone: proved by an SMS code, stored in E.164, and the only way to reset a
 * forgotten or disabled PIN (reset-pin-with-phone.ts).
 *
 * Because the phone can reset the PIN, linking one when a PIN exists needs that PIN (otherwise anyone
 * holding the session could link their own phone and reset the PIN), and so does unlinking it.
 * One number belongs to one account at most. Without an SMS provider linking is off
 * (phone-linking-enabled.ts); unlinking still works.
 */
import { parsePhoneNumberFromString, isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { and, eq, isNotNull, ne, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { sendSms } from '@/lib/notifications/send-sms';
import { PHONE_EXAMPLE } from './phone-example';
import { assertPhoneLinkingEnabled } from './phone-linking-enabled';
import { endAllSessions } from './revoke-sessions';
import { codeSmsText } from './code-sms-text';
import { verifyPin } from './verify-pin';
import { consumeSmsBudget } from './sms-limits';
import { consumeCode, issueCode } from './verification-codes';

/** Number types that cannot receive an SMS (max metadata tells them apart). */
const NOT_FOR_SMS = new Set(['FIXED_LINE', 'TOLL_FREE', 'PREMIUM_RATE', 'SHARED_COST', 'VOICEMAIL', 'UAN', 'PAGER']);

/**
 * A phone number as typed ("+33 6 12 34 56 78", or "06 12 34 56 78" with defaultCountry "FR") in
 * E.164 ("+33612345678"); throws invalid_request for anything that is not a valid mobile number.
 * Uses libphonenumber's full ("max") metadata, which checks number ranges and not only lengths.
 */
export function normalisePhone(phone: string, defaultCountry?: string): string {
  let country: CountryCode | undefined;
  if (defaultCountry !== undefined) {
    const upper = defaultCountry.toUpperCase();
    if (!isSupportedCountry(upper)) {
      throw new AppError('invalid_request', `Unknown country "${defaultCountry}": use a two-letter code such as FR or US.`, {
        param: 'defaultCountry',
      });
    }
    country = upper;
  }
  const parsed = typeof phone === 'string' ? parsePhoneNumberFromString(phone, country) : undefined;
  if (!parsed || !parsed.isValid() || parsed.ext) {
    throw new AppError('invalid_request', `That is not a valid phone number. Enter it with its country code, e.g. ${PHONE_EXAMPLE}.`, {
      param: 'phone',
    });
  }
  const type = parsed.getType();
  if (type && NOT_FOR_SMS.has(type)) {
    throw new AppError(
      'invalid_request',
      'That number cannot receive text messages (a landline or service number). Enter a mobile number.',
      {
        param: 'phone',
      },
    );
  }
  return parsed.number;
}

async function assertPhoneFree(db: DbOrTx, userId: string, phoneE164: string): Promise<void> {
  const [other] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.phoneE164, phoneE164), isNotNull(users.phoneVerifiedAt), ne(users.id, userId)))
    .limit(1);
  if (other) throw new AppError('phone_in_use', 'This phone number is already linked to another account.', { param: 'phone' });
}

/**
 * Step 1 of linking: checks the number and sends a 'link_phone' code to it by SMS. When the account
 * has a PIN, `pin` is required and checked (counted like any PIN entry).
 */
export async function startPhoneLink(input: {
  userId: string;
  phone: string;
  defaultCountry?: string;
  pin?: string;
  /** The client's IP, for the per-IP SMS limit. */
  ip?: string | null;
}): Promise<{ phoneE164: string; expiresAt: Date }> {
  assertPhoneLinkingEnabled();
  const phoneE164 = normalisePhone(input.phone, input.defaultCountry);
  const [user] = await getDb()
    .select({ pinHash: users.pinHash, phoneE164: users.phoneE164, phoneVerifiedAt: users.phoneVerifiedAt })
    .from(users)
    .where(eq(users.id, input.userId));
  if (!user) throw new AppError('not_found', `No account ${input.userId}.`);
  if (user.phoneE164 === phoneE164 && user.phoneVerifiedAt) {
    throw new AppError('invalid_request', 'This number is already linked to your account.', { param: 'phone' });
  }
  if (user.pinHash) {
    if (!input.pin) throw new AppError('invalid_request', 'Enter your PIN to link a phone: the phone can reset the PIN.', { param: 'pin' });
    await verifyPin({ userId: input.userId, pin: input.pin });
  }
  await assertPhoneFree(getDb(), input.userId, phoneE164);
  const budget = await consumeSmsBudget({ userId: input.userId, ip: input.ip ?? null, phoneE164 });
  const { code, expiresAt } = await issueCode({ purpose: 'link_phone', target: phoneE164, userId: input.userId }).catch(
    async (error: unknown) => {
      await budget.refund();
      throw error;
    },
  );
  await sendSms({ to: phoneE164, text: codeSmsText(code) });
  return { phoneE164, expiresAt };
}

/** Step 2: the code sent to the number proves it; the number becomes the account's linked phone. */
export async function confirmPhoneLink(input: {
  userId: string;
  phone: string;
  code: string;
  defaultCountry?: string;
  now?: Date;
}): Promise<{ phoneE164: string }> {
  const phoneE164 = normalisePhone(input.phone, input.defaultCountry);
  // Refuse before the code is used up; checked again below under the lock.
  await assertPhoneFree(getDb(), input.userId, phoneE164);
  const { userId: codeOwner } = await consumeCode({ purpose: 'link_phone', target: phoneE164, code: input.code, now: input.now });
  if (codeOwner !== input.userId) {
    throw new AppError('code_incorrect', 'This code was not sent for this account. Ask for a new code.', { param: 'code' });
  }
  await getDb().transaction(async (tx) => {
    // No unique index on phone_e164: an advisory lock per number serialises concurrent links of it.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`phone:${phoneE164}`}, 0))`);
    await assertPhoneFree(tx, input.userId, phoneE164);
    const [updated] = await tx
      .update(users)
      // A new phone can reset the PIN: every session ends with the change (issue 14).
      .set({ phoneE164, phoneVerifiedAt: input.now ?? new Date(), ...endAllSessions })
      .where(eq(users.id, input.userId))
      .returning({ id: users.id });
    if (!updated) throw new AppError('not_found', `No account ${input.userId}.`);
  });
  return { phoneE164 };
}

/** Removes the linked phone; needs the PIN. Without a phone, a forgotten PIN can no longer be reset. */
export async function unlinkPhone(input: { userId: string; pin: string }): Promise<void> {
  if (!input.pin) throw new AppError('invalid_request', 'Enter your PIN to unlink your phone.', { param: 'pin' });
  const [user] = await getDb().select({ phoneE164: users.phoneE164 }).from(users).where(eq(users.id, input.userId));
  if (!user) throw new AppError('not_found', `No account ${input.userId}.`);
  if (!user.phoneE164) throw new AppError('phone_not_linked', 'No phone is linked to this account.');
  await getDb().transaction(async (tx) => {
    await verifyPin({ userId: input.userId, pin: input.pin, tx });
    await tx
      .update(users)
      .set({ phoneE164: null, phoneVerifiedAt: null, ...endAllSessions })
      .where(eq(users.id, input.userId));
  });
}
