/**
 * Two-factor sign-in: an account with an authenticator app or a passkey signs in with its first
 * method (e-mail code, Google / Apple, Ethereum) and then one of these — or a recovery code. Its
 * session stays "second factor pending" until then and opens nothing (lib/auth/session.ts).
 *
 * Members acting for a verified merchant must have one before creating production keys or
 * withdrawing (requireSecondFactor): their session alone is what a thief would hold. In live mode a
 * factor counts there only once it is FACTOR_COOLING_HOURS old (factor-usable-from.ts).
 */
import 'server-only';
import { count, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { passkeys, users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { reportingRefusal, type StepUpAttempt } from '@/lib/accounts/reporting-refusal';
import { factorUsableFrom, formatUsableFrom, isCoolingDown, type StepUpMode } from './factor-usable-from';
import { verifyPasskeyAssertion } from './passkeys';
import { countUnusedRecoveryCodes, redeemRecoveryCode } from './recovery-codes';
import { verifyTotpCode } from './totp';

export interface SecondFactors {
  totp: boolean;
  /** When the authenticator app was turned on. */
  totpEnabledAt: Date | null;
  passkeys: number;
  recoveryCodesLeft: number;
}

export async function secondFactorsOf(userId: string): Promise<SecondFactors> {
  const [user] = await getDb().select({ totpEnabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, userId));
  const [keys] = await getDb().select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
  const totpEnabledAt = user?.totpEnabledAt ?? null;
  return { totp: totpEnabledAt !== null, totpEnabledAt, passkeys: keys!.n, recoveryCodesLeft: await countUnusedRecoveryCodes(userId) };
}

export async function hasSecondFactor(userId: string): Promise<boolean> {
  const factors = await secondFactorsOf(userId);
  return factors.totp || factors.passkeys > 0;
}

/**
 * Whether the account's second factor counts for a `mode` confirmation now: 'none' (no factor),
 * 'cooling' (every factor younger than FACTOR_COOLING_HOURS, live mode; `usableFrom` is when the first
 * one counts) or 'ready'. Pages say it before a form is filled; requireSecondFactor enforces it.
 */
export async function secondFactorReadiness(
  userId: string,
  options: { mode: StepUpMode; now?: Date },
): Promise<{ state: 'none' } | { state: 'cooling'; usableFrom: Date } | { state: 'ready' }> {
  const [user] = await getDb().select({ totpEnabledAt: users.totpEnabledAt }).from(users).where(eq(users.id, userId));
  const keys = await getDb().select({ createdAt: passkeys.createdAt }).from(passkeys).where(eq(passkeys.userId, userId));
  const added = [user?.totpEnabledAt ?? null, ...keys.map((key) => key.createdAt)].filter((at): at is Date => at !== null);
  if (added.length === 0) return { state: 'none' };
  if (added.some((at) => !isCoolingDown(at, options.mode, options.now))) return { state: 'ready' };
  return { state: 'cooling', usableFrom: new Date(Math.min(...added.map((at) => factorUsableFrom(at).getTime()))) };
}

/**
 * Refuses `what` (e.g. "create production keys") until the account has a second factor; in live
 * mode, one at least FACTOR_COOLING_HOURS old (factor_cooling_down names when the first one counts).
 * A refusal is reported as `options.attempt` (e-mailed, throttled: reporting-refusal.ts).
 */
export async function requireSecondFactor(
  userId: string,
  what: string,
  options: { mode: StepUpMode; attempt: StepUpAttempt; now?: Date },
): Promise<void> {
  await reportingRefusal({ userId, attempt: options.attempt, now: options.now }, () => checkSecondFactor(userId, what, options));
}

async function checkSecondFactor(userId: string, what: string, options: { mode: StepUpMode; now?: Date }): Promise<void> {
  const readiness = await secondFactorReadiness(userId, options);
  switch (readiness.state) {
    case 'ready':
      return;
    case 'none':
      throw new AppError(
        'two_factor_required',
        `Turn on two-factor sign-in (a passkey or an authenticator app, under Account → Security) before you ${what}.`,
      );
    case 'cooling':
      throw new AppError(
        'factor_cooling_down',
        `Your two-factor sign-in is new: it counts before you ${what} in live mode from ${formatUsableFrom(readiness.usableFrom)}.`,
      );
  }
}

export type SecondFactorProof =
  { method: 'totp'; code: string } | { method: 'recovery'; code: string } | { method: 'passkey'; response: unknown };

/** The second step of sign-in; throws code_incorrect when the proof does not hold. */
export async function verifySecondFactor(userId: string, proof: SecondFactorProof): Promise<void> {
  switch (proof.method) {
    case 'totp':
      if (await verifyTotpCode({ userId, code: proof.code })) return;
      throw new AppError('code_incorrect', 'That code is not right (or was already used). Enter the code your app shows now.', {
        param: 'code',
      });
    case 'recovery':
      if (await redeemRecoveryCode({ userId, code: proof.code })) return;
      throw new AppError('code_incorrect', 'That recovery code is not right or was already used.', { param: 'recoveryCode' });
    case 'passkey':
      if (await verifyPasskeyAssertion({ userId, ceremony: 'sign_in', response: proof.response })) return;
      throw new AppError('code_incorrect', 'The passkey did not confirm it is you. Try again, or use another method.', {
        param: 'passkey',
      });
  }
}
