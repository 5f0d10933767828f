import { randomInt } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { generate } from 'otplib';
import { setPin } from '@/lib/accounts/set-pin';
import { confirmTotpEnrolment, startTotpEnrolment } from '@/lib/accounts/two-factor/totp';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { newId, randomBase62 } from '@/lib/ids';
import { readOutbox } from '@/lib/notifications/outbox';

export function uniqueEmail(prefix = 'user'): string {
  return `${prefix}-${randomBase62(10).toLowerCase()}@example.test`;
}

/**
 * The code in the newest message of the dev outbox sent to `to` (e-mail or phone) that carries one
 * (security notices after a factor change carry none).
 */
export function latestCode(to: string, channel: 'email' | 'sms' = 'email'): string {
  const code = readOutbox(channel, to)
    .map((message) => message.text.match(/\b(\d{6})\b/)?.[1])
    .find((found) => found !== undefined);
  if (!code) throw new Error(`no code sent to ${to}`);
  return code;
}

/** A bare account row (no wallets), optionally with a PIN. */
export async function newUser(options: { pin?: string } = {}): Promise<string> {
  const id = newId('user');
  await getDb()
    .insert(users)
    .values({ id, email: `${id.toLowerCase()}@example.test`, signUpMethod: 'email' });
  if (options.pin) await setPin({ userId: id, pin: options.pin, confirm: options.pin });
  return id;
}

export async function userRow(userId: string) {
  const [row] = await getDb().select().from(users).where(eq(users.id, userId));
  return row!;
}

/** The AppError a call fails with (any other outcome fails the test). */
export async function appError(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to fail with an AppError');
}

/** A French mobile number in E.164 (1 in 10 million: no clash within a run). */
export function randomMobile(): string {
  return `+3361${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
}

/** The code of the newest SMS to `phone`, checking its exact wording. */
export function lastSmsCode(phone: string): string {
  const [message] = readOutbox('sms', phone);
  const code = /^Your Chargeport code is (\d{6})\. It expires in 10 minutes\.$/.exec(message?.text ?? '')?.[1];
  if (!code) throw new Error(`no code SMS to ${phone}: ${message?.text}`);
  return code;
}

/**
 * Turns on an authenticator app for the account, as a fixture (the storage verbs, without the
 * factor-change proof the Security page asks for: that rule is tested in factor-changes.test.ts).
 * By default the app is established (turned on more than FACTOR_COOLING_HOURS ago), so it counts for
 * live money moves; `fresh: true` leaves it just turned on. Returns a code generator.
 */
export async function enrolTotp(
  userId: string,
  options: { fresh?: boolean } = {},
): Promise<{ secret: string; code: () => Promise<string> }> {
  const { secret } = await startTotpEnrolment({ userId, label: 'test' });
  const code = () => generate({ secret });
  await confirmTotpEnrolment({ userId, code: await code() });
  if (!options.fresh)
    await getDb()
      .update(users)
      .set({ totpEnabledAt: hoursAgo(env().FACTOR_COOLING_HOURS + 1) })
      .where(eq(users.id, userId));
  return { secret, code };
}

export function hoursAgo(hours: number, from: Date = new Date()): Date {
  return new Date(from.getTime() - hours * 3_600_000);
}
