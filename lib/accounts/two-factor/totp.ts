/**
 * Authenticator-app codes (TOTP, RFC 6238, with otplib): a second factor for sign-in.
 *
 *  - the secret is sealed at rest under the wallet master key, bound to the account (AAD), because
 *    it must be read back to check codes; master-key rotation re-seals it (lib/admin/sealed-columns.ts);
 *  - enrolment is two steps: a secret is stored unconfirmed, and turned on only by a right code from
 *    the app (so a mistyped scan never locks anyone out);
 *  - a code is accepted within ±30 s, and never twice: the time step of the last accepted code is kept
 *    and older or equal steps are refused (a code seen over a shoulder cannot be replayed).
 */
import 'server-only';
import { and, eq, isNull } from 'drizzle-orm';
import { generateSecret, generateURI, verify } from 'otplib';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { masterKeyById, masterKeyRing, open, seal } from '@/lib/keyring/master-keys';

const ISSUER = 'Chargeport';

function aadFor(userId: string): Buffer {
  return Buffer.from(JSON.stringify(['chargeport.totp-secret.v1', userId]), 'utf8');
}

function sealSecret(userId: string, secret: string): string {
  const { current } = masterKeyRing();
  return `${current.id}:${seal(current.key, Buffer.from(secret, 'utf8'), aadFor(userId))}`;
}

function openSecret(userId: string, stored: string): string {
  const separator = stored.indexOf(':');
  const context = `The authenticator secret of account ${userId}`;
  return open(masterKeyById(stored.slice(0, separator), context), stored.slice(separator + 1), aadFor(userId), context).toString('utf8');
}

/** Step 1: a new secret (replacing an unconfirmed one) and the otpauth:// URI the app scans. */
export async function startTotpEnrolment(input: { userId: string; label: string }): Promise<{ secret: string; uri: string }> {
  const secret = generateSecret();
  const [updated] = await getDb()
    .update(users)
    .set({ totpSecret: sealSecret(input.userId, secret), totpLastStep: null })
    .where(and(eq(users.id, input.userId), isNull(users.totpEnabledAt)))
    .returning({ id: users.id });
  if (!updated) throw new AppError('invalid_request', 'An authenticator app is already set up. Turn it off first to set up another.');
  return { secret, uri: generateURI({ issuer: ISSUER, label: input.label, secret }) };
}

/** Checks a code against the account's secret (enabled, or pending when `pending`); records its step. */
async function acceptCode(userId: string, code: string, pending: boolean): Promise<boolean> {
  if (!/^\d{6}$/.test(code.trim())) return false;
  const [user] = await getDb()
    .select({ secret: users.totpSecret, enabledAt: users.totpEnabledAt, lastStep: users.totpLastStep })
    .from(users)
    .where(eq(users.id, userId));
  if (!user?.secret || (pending ? user.enabledAt !== null : user.enabledAt === null)) return false;
  const result = await verify({
    secret: openSecret(userId, user.secret),
    token: code.trim(),
    epochTolerance: 30,
    ...(user.lastStep === null ? {} : { afterTimeStep: user.lastStep }),
  });
  if (!result.valid || !('timeStep' in result)) return false;
  // Conditional on the step read: two requests with the same code cannot both pass.
  const [recorded] = await getDb()
    .update(users)
    .set({ totpLastStep: result.timeStep, ...(pending ? { totpEnabledAt: new Date() } : {}) })
    .where(
      and(
        eq(users.id, userId),
        user.lastStep === null ? isNull(users.totpLastStep) : eq(users.totpLastStep, user.lastStep),
        pending ? isNull(users.totpEnabledAt) : undefined,
      ),
    )
    .returning({ id: users.id });
  return recorded !== undefined;
}

/** Step 2: the first right code from the app turns it on. */
export async function confirmTotpEnrolment(input: { userId: string; code: string }): Promise<void> {
  if (!(await acceptCode(input.userId, input.code, true))) {
    throw new AppError('code_incorrect', 'That code is not right. Enter the 6 digits your authenticator app shows now.', { param: 'code' });
  }
}

/** A code at sign-in (or as a step-up); false when wrong, reused, or no app is set up. */
export async function verifyTotpCode(input: { userId: string; code: string }): Promise<boolean> {
  return acceptCode(input.userId, input.code, false);
}

/** Removes the authenticator app (the caller has checked the PIN or a passkey). */
export async function removeTotp(userId: string): Promise<void> {
  await getDb().update(users).set({ totpSecret: null, totpEnabledAt: null, totpLastStep: null }).where(eq(users.id, userId));
}

/** Master-key rotation (lib/admin/sealed-columns.ts): the stored secret, opened and sealed under the current key. */
export function resealTotpSecret(userId: string, stored: string): string {
  return sealSecret(userId, openSecret(userId, stored));
}
