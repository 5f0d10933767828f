/**
 * Two-factor sign-in: an account with an authenticator app or a passkey signs in with its first
 * method (e-mail code, Google / Apple, Ethereum) and then one of these — or a recovery code. Its
 * session stays "second factor pending" until then and opens nothing (lib/auth/session.ts).
 *
 * Members acting for a verified merchant must have one before creating production keys or
 * withdrawing (requireSecondFactor): their session alone is what a thief would hold.
 */
import 'server-only';
import { and, count, eq, isNotNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { passkeys, users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { verifyPasskeyAssertion } from './passkeys';
import { countUnusedRecoveryCodes, redeemRecoveryCode } from './recovery-codes';
import { verifyTotpCode } from './totp';

export interface SecondFactors {
  totp: boolean;
  passkeys: number;
  recoveryCodesLeft: number;
}

export async function secondFactorsOf(userId: string): Promise<SecondFactors> {
  const [totp] = await getDb()
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.id, userId), isNotNull(users.totpEnabledAt)));
  const [keys] = await getDb().select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
  return { totp: totp!.n > 0, passkeys: keys!.n, recoveryCodesLeft: await countUnusedRecoveryCodes(userId) };
}

export async function hasSecondFactor(userId: string): Promise<boolean> {
  const factors = await secondFactorsOf(userId);
  return factors.totp || factors.passkeys > 0;
}

/** Refuses `what` (e.g. "create production keys") until the account has a second factor. */
export async function requireSecondFactor(userId: string, what: string): Promise<void> {
  if (await hasSecondFactor(userId)) return;
  throw new AppError(
    'two_factor_required',
    `Turn on two-factor sign-in (a passkey or an authenticator app, under Account → Security) before you ${what}.`,
  );
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
