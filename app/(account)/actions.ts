'use server';
/**
 * Server actions of the signed-in account pages: PIN, phone, forgot-PIN, key export, merchant upgrade.
 * The first PIN needs the first-login prompt or an e-mail code (lib/accounts/set-first-pin.ts).
 * Each parses the form, calls one domain verb, and returns form state (errors next to the field).
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { changePin } from '@/lib/accounts/change-pin';
import { requestPinResetCode } from '@/lib/accounts/request-pin-reset-code';
import { resetPinWithPhone } from '@/lib/accounts/reset-pin-with-phone';
import { requestSecurityCode } from '@/lib/accounts/request-security-code';
import { setFirstPin } from '@/lib/accounts/set-first-pin';
import { confirmPhoneLink, startPhoneLink, unlinkPhone } from '@/lib/accounts/phone';
import type { FormState } from '@/lib/auth/form-state';
import { userAction } from '@/lib/api/server-actions';
import { safeReturnPath } from '@/lib/auth/return-path';
import { sessionSignedInAt } from '@/lib/auth/session';
import { becomeMerchant } from '@/lib/onboarding/become-merchant';
import { exportPrivateKey } from '@/lib/wallets/export-private-key';
import { confirmEmailChange, startEmailChange } from '@/lib/accounts/change-email';
import { emailSchema } from '@/lib/accounts/email';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
import { consumeAuthRateLimit } from '@/lib/rate-limit/auth-rate-limit';
import { renewThisSession } from '@/lib/auth/end-other-sessions';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';

const field = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

/** The new address, or invalid_request naming the field. */
function newEmailOf(value: string): string {
  const parsed = emailSchema.safeParse(value);
  if (!parsed.success) throw new AppError('invalid_request', 'Enter the new e-mail address.', { param: 'newEmail' });
  return parsed.data;
}

export const startEmailChangeAction = userAction(
  { values: (form) => ({ newEmail: field(form, 'newEmail') }) },
  async ({ user, ip }, { form, values }) => {
    const newEmail = newEmailOf(values.newEmail);
    await consumeAuthRateLimit({ ip: ip ?? 'local', address: newEmail });
    await startEmailChange({ userId: user.id, newEmail, stepUp: stepUpFromForm(form) });
    return { values: { newEmail }, notice: `We sent a code to ${newEmail} and one to your current address. Enter both.` };
  },
);

export const confirmEmailChangeAction = userAction(
  { values: (form) => ({ newEmail: field(form, 'newEmail') }) },
  async ({ user, ip }, { form, values }) => {
    const newEmail = newEmailOf(values.newEmail);
    await consumeAuthRateLimit({ ip: ip ?? 'local', address: newEmail });
    await confirmEmailChange({ userId: user.id, newEmail, newCode: field(form, 'newCode'), oldCode: field(form, 'oldCode') });
    await renewThisSession(user.id);
    redirect('/account/profile?email=changed');
  },
);

/** E-mails the code that sets a first PIN outside the first-login prompt (lib/accounts/set-first-pin.ts). */
export const requestFirstPinCodeAction = userAction({}, async ({ user, ip }) => {
  const { sentTo } = await requestSecurityCode({ userId: user.id, reason: 'first_pin', ip });
  return { notice: `We sent a code to ${sentTo}. Enter it with your new PIN.` };
});

export const setPinAction = userAction({}, async ({ user, ip }, { form }) => {
  await setFirstPin({
    userId: user.id,
    pin: field(form, 'pin'),
    confirm: field(form, 'confirm'),
    sessionSignedInAt: await sessionSignedInAt(),
    emailCode: field(form, 'emailCode') || undefined,
    ip,
  });
  const target = new URL(safeReturnPath(field(form, 'next'), { appUrl: env().APP_URL }), 'http://local');
  target.searchParams.set('pin', 'set');
  redirect(`${target.pathname}${target.search}`);
});

export const changePinAction = userAction({}, async ({ user, ip }, { form }) => {
  await changePin({ userId: user.id, oldPin: field(form, 'oldPin'), pin: field(form, 'pin'), confirm: field(form, 'confirm'), ip });
  await renewThisSession(user.id);
  return { notice: 'Your PIN is changed. Your other sessions were signed out.' };
});

export const startPhoneLinkAction = userAction(
  { values: (form) => ({ phone: field(form, 'phone'), country: field(form, 'country') }) },
  async ({ user, ip }, { form, values }) => {
    const pin = field(form, 'pin');
    const { phoneE164 } = await startPhoneLink({
      userId: user.id,
      phone: values.phone,
      defaultCountry: values.country || undefined,
      pin: pin || undefined,
      ip,
    });
    return { values: { phone: phoneE164, country: values.country }, notice: `We sent a code to ${phoneE164}.` };
  },
);

export const confirmPhoneLinkAction = userAction(
  { values: (form) => ({ phone: field(form, 'phone') }) },
  async ({ user }, { form, values }) => {
    await confirmPhoneLink({ userId: user.id, phone: values.phone, code: field(form, 'code') });
    await renewThisSession(user.id);
    redirect('/account/phone?linked=1');
  },
);

export const unlinkPhoneAction = userAction({}, async ({ user }, { form }) => {
  await unlinkPhone({ userId: user.id, pin: field(form, 'pin') });
  await renewThisSession(user.id);
  redirect('/account/phone?unlinked=1');
});

export const requestPinResetAction = userAction({}, async ({ user, ip }) => {
  await requestPinResetCode({ userId: user.id, ip });
  return { notice: 'We sent a code to your phone.' };
});

export const resetPinAction = userAction({}, async ({ user, ip }, { form }) => {
  await resetPinWithPhone({ userId: user.id, code: field(form, 'code'), pin: field(form, 'pin'), confirm: field(form, 'confirm'), ip });
  await renewThisSession(user.id);
  redirect('/wallet?pin=reset');
});

export interface ExportState extends FormState {
  exported?: { privateKey: string; format: string; address: string };
}

export const exportKeyAction = userAction<ExportState>({}, async ({ user, ip }, { form }) => {
  const exported = await exportPrivateKey({
    userId: user.id,
    walletId: field(form, 'walletId'),
    pin: field(form, 'pin'),
    passkeyResponse: field(form, 'passkeyResponse') || undefined,
    ip,
    userAgent: (await headers()).get('user-agent'),
  });
  return { exported };
});

export interface BecomeMerchantState extends FormState {
  testKey?: string;
}

export const becomeMerchantAction = userAction<BecomeMerchantState>(
  { values: (form) => ({ businessName: field(form, 'businessName') }) },
  async ({ user }, { values }) => {
    const { testKey } = await becomeMerchant({ userId: user.id, businessName: values.businessName! });
    return { testKey: testKey.plaintext, values };
  },
);
