/**
 * What confirms a change of second factors (issue 26, finding N1; docs/adr/0027-second-factors.md):
 * adding or removing a passkey, turning the authenticator app on or off, renewing recovery codes.
 * A session alone never does — that is what a stolen cookie holds.
 *
 *  - an account with a PIN or a passkey confirms with one of them (verifyStepUp, counted and locked
 *    like every PIN entry). The e-mail code is refused for it: a mailbox plus a session must not
 *    replace the factor the account already has;
 *  - an account with neither confirms with a 6-digit code e-mailed to its verified address
 *    (requestSecurityCode, purpose `security_change`: hashed, single use, 5 tries, the daily cap).
 *
 * Managing factors is not a money move: a passkey still cooling down may confirm it (mode 'test').
 */
import 'server-only';
import { count, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { passkeys, users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { reportingRefusal, type StepUpAttempt } from '@/lib/accounts/reporting-refusal';
import { checkStepUp, type StepUpProof } from '../step-up';
import { consumeCode } from '../verification-codes';

export interface FactorChangeProof extends StepUpProof {
  /** The code from requestSecurityCode, for an account with no PIN and no passkey. */
  emailCode?: string;
}

/** How an account confirms a factor change: its PIN or passkey ('step_up'), else an e-mail code. */
export async function factorChangeMethod(userId: string): Promise<'step_up' | 'email_code'> {
  const [user] = await getDb().select({ pinHash: users.pinHash }).from(users).where(eq(users.id, userId));
  if (!user) throw new AppError('not_found', `No account ${userId}.`);
  const [keys] = await getDb().select({ n: count() }).from(passkeys).where(eq(passkeys.userId, userId));
  return user.pinHash !== null || keys!.n > 0 ? 'step_up' : 'email_code';
}

/**
 * Throws unless `proof` confirms a factor change for this account (see the header). A refusal is
 * reported as `attempt` (e-mailed to the account, throttled: reporting-refusal.ts).
 */
export async function verifyFactorChangeProof(input: {
  userId: string;
  proof: FactorChangeProof;
  attempt: StepUpAttempt;
  now?: Date;
}): Promise<void> {
  await reportingRefusal(input, () => checkFactorChangeProof(input));
}

async function checkFactorChangeProof(input: { userId: string; proof: FactorChangeProof; now?: Date }): Promise<void> {
  const { proof } = input;
  if ((await factorChangeMethod(input.userId)) === 'step_up') {
    if (!proof.pin && !proof.passkeyResponse) {
      throw new AppError('step_up_required', 'Confirm with your PIN or a passkey: a session alone cannot change how you sign in.', {
        param: 'pin',
      });
    }
    await checkStepUp({ userId: input.userId, proof, mode: 'test', now: input.now });
    return;
  }
  const code = proof.emailCode?.trim();
  if (!code) {
    throw new AppError('step_up_required', 'Confirm with the code we e-mail you: a session alone cannot change how you sign in.', {
      param: 'emailCode',
    });
  }
  const [user] = await getDb()
    .select({ email: users.email, verifiedAt: users.emailVerifiedAt })
    .from(users)
    .where(eq(users.id, input.userId));
  if (!user?.email || !user.verifiedAt) throw new AppError('email_not_verified', 'Verify your e-mail first.');
  const { userId: codeOwner } = await consumeCode({ purpose: 'security_change', target: user.email, code, now: input.now });
  if (codeOwner !== input.userId) {
    throw new AppError('code_incorrect', 'This code was not sent for this account. Ask for a new code.', { param: 'emailCode' });
  }
}
