/**
 * E-mails the account's own address about every change to how it is confirmed (issue 26): a passkey
 * added or removed, the authenticator app turned on or off, recovery codes renewed, the PIN set,
 * changed or reset. The text says what, when and from which IP, and what to do if it was not the
 * owner; never a secret. Changes tried but refused are e-mailed by reporting-refusal.ts.
 *
 * Sent after the change committed (sendEmail talks SMTP or writes the dev outbox; there is no queue
 * table to commit it with): a mail that fails is logged and does not undo the change.
 */
import 'server-only';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { sendEmail } from '@/lib/notifications/send-email';

export type SecurityChange =
  | { kind: 'passkey_added'; name: string }
  | { kind: 'passkey_removed'; name: string }
  | { kind: 'totp_on' }
  | { kind: 'totp_off' }
  | { kind: 'recovery_codes_renewed' }
  | { kind: 'pin_set' }
  | { kind: 'pin_changed' }
  | { kind: 'pin_reset' }
  /** A merchant may now be paid without the PIN, within a budget (lib/allowances/). */
  | { kind: 'allowance_approved'; merchantName: string; perDay: string; until: string };

function describe(change: SecurityChange): { subject: string; what: string } {
  switch (change.kind) {
    case 'passkey_added':
      return { subject: 'a passkey was added', what: `A passkey named “${change.name}” was added to your account.` };
    case 'passkey_removed':
      return { subject: 'a passkey was removed', what: `The passkey named “${change.name}” was removed from your account.` };
    case 'totp_on':
      return { subject: 'an authenticator app was turned on', what: 'An authenticator app was turned on for two-factor sign-in.' };
    case 'totp_off':
      return { subject: 'the authenticator app was removed', what: 'The authenticator app was removed from two-factor sign-in.' };
    case 'recovery_codes_renewed':
      return { subject: 'new recovery codes', what: 'New recovery codes were made; the old ones no longer work.' };
    case 'pin_set':
      return { subject: 'your PIN was set', what: 'A PIN was set for your account.' };
    case 'pin_changed':
      return { subject: 'your PIN was changed', what: 'Your PIN was changed. Your other sessions were signed out.' };
    case 'allowance_approved':
      return {
        subject: `one-tap purchases from ${change.merchantName}`,
        what: `A spending allowance was approved: ${change.merchantName} may be paid from your balance without your PIN, up to ${change.perDay} in any 24 hours, until ${change.until}. See or revoke it at ${env().APP_URL}/wallet/allowances.`,
      };
    case 'pin_reset':
      return {
        subject: 'your PIN was reset',
        what: 'Your PIN was reset with a code sent to your phone. Your other sessions were signed out.',
      };
  }
}

export async function notifySecurityChange(input: {
  userId: string;
  change: SecurityChange;
  ip?: string | null;
  at?: Date;
}): Promise<void> {
  try {
    const [user] = await getDb().select({ email: users.email }).from(users).where(eq(users.id, input.userId));
    if (!user?.email) return;
    const { subject, what } = describe(input.change);
    const at = (input.at ?? new Date()).toISOString();
    await sendEmail({
      to: user.email,
      subject: `Chargeport security: ${subject}`,
      text: [
        what,
        '',
        `When: ${at}`,
        `From: ${input.ip ?? 'an unknown address'}`,
        '',
        'If this was you, there is nothing to do.',
        `If it was not: someone has your session. Sign in at ${env().APP_URL}/account/security, remove any passkey or authenticator app you do not recognise, change your PIN (or reset it through your phone), and contact support. New passkeys and authenticator apps do not confirm live payments for ${env().FACTOR_COOLING_HOURS} hours.`,
      ].join('\n'),
    });
  } catch (error) {
    log.error('security notification failed', { userId: input.userId, change: input.change.kind, error });
  }
}
