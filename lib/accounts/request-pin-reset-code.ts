/**
 * The first half of resetting a lost PIN through the linked phone (spec account rule 6: the phone is
 * the only backup): a 'reset_pin' code by SMS, throttled and budgeted like every SMS code
 * (sms-limits.ts). The second half is resetPinWithPhone.
 */
import { sendSms } from '@/lib/notifications/send-sms';
import { codeSmsText } from './code-sms-text';
import { linkedPhoneOrThrow } from './linked-phone-or-throw';
import { assertPhoneLinkingEnabled } from './phone-linking-enabled';
import { consumeSmsBudget } from './sms-limits';
import { issueCode } from './verification-codes';

/** Sends a 'reset_pin' code by SMS to the account's linked phone (throttled like every code). */
export async function requestPinResetCode(input: { userId: string; ip?: string | null; now?: Date }): Promise<{ expiresAt: Date }> {
  const phone = await linkedPhoneOrThrow(input.userId);
  // A phone linked before the SMS provider was removed cannot receive the code: say so, spend nothing.
  assertPhoneLinkingEnabled();
  const budget = await consumeSmsBudget({ userId: input.userId, ip: input.ip ?? null, phoneE164: phone });
  const { code, expiresAt } = await issueCode({ purpose: 'reset_pin', target: phone, userId: input.userId, now: input.now }).catch(
    async (error: unknown) => {
      await budget.refund();
      throw error;
    },
  );
  await sendSms({ to: phone, text: codeSmsText(code) });
  return { expiresAt };
}
