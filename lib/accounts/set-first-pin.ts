/**
 * The first PIN, set from a session (issue 26, finding N1; docs/adr/0027-second-factors.md). The PIN
 * confirms payments and key exports, so a stolen session of an account without one must not choose it.
 *
 * The first-login prompt (spec rule 5: after the first sign-in, a new account is sent to
 * /account/pin) is the one place a session alone sets it. Precisely, both hold:
 *  - the session's sign-in (its `authAt`, renewed by every fresh sign-in) was less than
 *    FIRST_PIN_PROMPT_MINUTES (15) ago, and
 *  - that sign-in happened within FIRST_PIN_PROMPT_MINUTES of the account's creation — it is the
 *    account's first sign-in (sign-up by e-mail, Google / Apple or Ethereum opens it at once).
 * Anywhere else (a later session, a stolen cookie of an old account) it needs a `security_change`
 * code e-mailed to the account's verified address (requestSecurityCode). Either way the address is told.
 */
import 'server-only';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { assertNewPin } from './assert-new-pin';
import { notifySecurityChange } from './notify-security-change';
import { setPin } from './set-pin';
import { consumeCode } from './verification-codes';

const FIRST_PIN_PROMPT_MS = 15 * 60_000;

/** Whether a session signed in at `sessionSignedInAt` is in its account's first-login prompt (see the header). */
export function isFirstPinPrompt(input: { accountCreatedAt: Date; sessionSignedInAt: Date | undefined; now?: Date }): boolean {
  if (!input.sessionSignedInAt) return false;
  const now = (input.now ?? new Date()).getTime();
  const signedIn = input.sessionSignedInAt.getTime();
  return now - signedIn < FIRST_PIN_PROMPT_MS && signedIn - input.accountCreatedAt.getTime() < FIRST_PIN_PROMPT_MS;
}

export async function setFirstPin(input: {
  userId: string;
  pin: string;
  confirm: string;
  /** When this session signed in (lib/auth/session.ts sessionSignedInAt). */
  sessionSignedInAt: Date | undefined;
  /** The code from requestSecurityCode, outside the first-login prompt. */
  emailCode?: string;
  ip?: string | null;
  now?: Date;
}): Promise<void> {
  const [user] = await getDb()
    .select({ createdAt: users.createdAt, email: users.email, verifiedAt: users.emailVerifiedAt })
    .from(users)
    .where(eq(users.id, input.userId));
  if (!user) throw new AppError('not_found', `No account ${input.userId}.`);
  // The new PIN first: a typo in it must not use up the e-mail code.
  assertNewPin(input.pin, input.confirm);
  if (!isFirstPinPrompt({ accountCreatedAt: user.createdAt, sessionSignedInAt: input.sessionSignedInAt, now: input.now })) {
    const code = input.emailCode?.trim();
    if (!code) {
      throw new AppError(
        'step_up_required',
        'Confirm with the code we e-mail you: outside your first sign-in, a session alone cannot set the PIN.',
        {
          param: 'emailCode',
        },
      );
    }
    if (!user.email || !user.verifiedAt) throw new AppError('email_not_verified', 'Verify your e-mail first.');
    const { userId: codeOwner } = await consumeCode({ purpose: 'security_change', target: user.email, code, now: input.now });
    if (codeOwner !== input.userId) {
      throw new AppError('code_incorrect', 'This code was not sent for this account. Ask for a new code.', { param: 'emailCode' });
    }
  }
  await setPin({ userId: input.userId, pin: input.pin, confirm: input.confirm, now: input.now });
  await notifySecurityChange({ userId: input.userId, change: { kind: 'pin_set' }, ip: input.ip, at: input.now });
}
