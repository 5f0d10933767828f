/**
 * E-mails a `security_change` code to the account's verified address: what confirms a second-factor
 * change for an account with no PIN and no passkey, or a first PIN set outside the first-login prompt
 * (two-factor/factor-change-proof.ts, set-first-pin.ts). Throttled like every code (60 s, 10 an hour).
 * The mail says what the code is for and where it was asked from, so a code asked for by someone
 * else is itself a warning.
 */
import 'server-only';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { sendEmail } from '@/lib/notifications/send-email';
import { factorChangeMethod } from './two-factor/factor-change-proof';
import { CODE_TTL_MS, issueCode } from './verification-codes';

export type SecurityCodeReason = 'factor_change' | 'first_pin';

const PURPOSE_TEXT: Record<SecurityCodeReason, string> = {
  factor_change: 'change your two-factor sign-in (add or remove a passkey or an authenticator app)',
  first_pin: 'set the PIN of your account',
};

export async function requestSecurityCode(input: {
  userId: string;
  reason: SecurityCodeReason;
  ip?: string | null;
  now?: Date;
}): Promise<{ sentTo: string; expiresAt: Date }> {
  const [user] = await getDb()
    .select({ email: users.email, verifiedAt: users.emailVerifiedAt, pinHash: users.pinHash })
    .from(users)
    .where(eq(users.id, input.userId));
  if (!user) throw new AppError('not_found', `No account ${input.userId}.`);
  if (!user.email || !user.verifiedAt) throw new AppError('email_not_verified', 'Verify your e-mail first.');
  if (input.reason === 'first_pin' && user.pinHash !== null) {
    throw new AppError('pin_already_set', 'A PIN is already set. Change it with your current PIN, or reset it through your linked phone.');
  }
  if (input.reason === 'factor_change' && (await factorChangeMethod(input.userId)) === 'step_up') {
    throw new AppError('invalid_request', 'Your account has a PIN or a passkey: confirm with it instead of an e-mail code.', {
      param: 'pin',
    });
  }
  const { code, expiresAt } = await issueCode({ purpose: 'security_change', target: user.email, userId: input.userId, now: input.now });
  await sendEmail({
    to: user.email,
    subject: 'Your Chargeport security code',
    text: [
      `Your Chargeport code is ${code}. It expires in ${CODE_TTL_MS / 60_000} minutes.`,
      '',
      `It confirms a request to ${PURPOSE_TEXT[input.reason]}, asked from ${input.ip ?? 'an unknown address'} at ${(input.now ?? new Date()).toISOString()}.`,
      `If you did not ask for it, do not give it to anyone: someone has your session. Sign in at ${env().APP_URL}/account/security and contact support.`,
    ].join('\n'),
  });
  return { sentTo: user.email, expiresAt };
}
