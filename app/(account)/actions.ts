'use server';
/**
 * Server actions of the signed-in account pages: PIN, phone, forgot-PIN, key export, merchant upgrade.
 * The first PIN needs the first-login prompt or an e-mail code (lib/accounts/set-first-pin.ts).
 * Each parses the form, calls one domain verb, and returns form state (errors next to the field).
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { changePin, requestPinResetCode, resetPinWithPhone } from '@/lib/accounts/pin';
import { requestSecurityCode } from '@/lib/accounts/request-security-code';
import { setFirstPin } from '@/lib/accounts/set-first-pin';
import { confirmPhoneLink, startPhoneLink, unlinkPhone } from '@/lib/accounts/phone';
import { formError, type FormState } from '@/lib/auth/form-state';
import { safeReturnPath } from '@/lib/auth/return-path';
import { requireUserForAction, sessionSignedInAt } from '@/lib/auth/session';
import { becomeMerchant } from '@/lib/onboarding/become-merchant';
import { exportPrivateKey } from '@/lib/wallets/export-private-key';
import { clientIpFrom } from '@/lib/http/client-ip';
import { confirmEmailChange, startEmailChange } from '@/lib/accounts/change-email';
import { emailSchema } from '@/lib/accounts/email';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
import { consumeAuthRateLimit } from '@/lib/rate-limit/auth-rate-limit';
import { renewThisSession } from '@/lib/auth/end-other-sessions';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';

const field = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

async function clientIp(): Promise<string | null> {
  return clientIpFrom(await headers());
}

export async function startEmailChangeAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { newEmail: field(form, 'newEmail') };
  try {
    const user = await requireUserForAction();
    const parsed = emailSchema.safeParse(values.newEmail);
    if (!parsed.success) throw new AppError('invalid_request', 'Enter the new e-mail address.', { param: 'newEmail' });
    await consumeAuthRateLimit({ ip: (await clientIp()) ?? 'local', address: parsed.data });
    await startEmailChange({ userId: user.id, newEmail: parsed.data, stepUp: stepUpFromForm(form) });
    return { values: { newEmail: parsed.data }, notice: `We sent a code to ${parsed.data} and one to your current address. Enter both.` };
  } catch (error) {
    return formError(error, values);
  }
}

export async function confirmEmailChangeAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { newEmail: field(form, 'newEmail') };
  try {
    const user = await requireUserForAction();
    const parsed = emailSchema.safeParse(values.newEmail);
    if (!parsed.success) throw new AppError('invalid_request', 'Enter the new e-mail address.', { param: 'newEmail' });
    await consumeAuthRateLimit({ ip: (await clientIp()) ?? 'local', address: parsed.data });
    await confirmEmailChange({ userId: user.id, newEmail: parsed.data, newCode: field(form, 'newCode'), oldCode: field(form, 'oldCode') });
    await renewThisSession(user.id);
  } catch (error) {
    return formError(error, values);
  }
  redirect('/account/profile?email=changed');
}

/** E-mails the code that sets a first PIN outside the first-login prompt (lib/accounts/set-first-pin.ts). */
export async function requestFirstPinCodeAction(_state: FormState, _form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    const { sentTo } = await requestSecurityCode({ userId: user.id, reason: 'first_pin', ip: await clientIp() });
    return { notice: `We sent a code to ${sentTo}. Enter it with your new PIN.` };
  } catch (error) {
    return formError(error);
  }
}

export async function setPinAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await setFirstPin({
      userId: user.id,
      pin: field(form, 'pin'),
      confirm: field(form, 'confirm'),
      sessionSignedInAt: await sessionSignedInAt(),
      emailCode: field(form, 'emailCode') || undefined,
      ip: await clientIp(),
    });
  } catch (error) {
    return formError(error);
  }
  const next = field(form, 'next');
  const target = new URL(safeReturnPath(next, { appUrl: env().APP_URL }), 'http://local');
  target.searchParams.set('pin', 'set');
  redirect(`${target.pathname}${target.search}`);
}

export async function changePinAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await changePin({
      userId: user.id,
      oldPin: field(form, 'oldPin'),
      pin: field(form, 'pin'),
      confirm: field(form, 'confirm'),
      ip: await clientIp(),
    });
    await renewThisSession(user.id);
    return { notice: 'Your PIN is changed. Your other sessions were signed out.' };
  } catch (error) {
    return formError(error);
  }
}

export async function startPhoneLinkAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { phone: field(form, 'phone'), country: field(form, 'country') };
  try {
    const user = await requireUserForAction();
    const pin = field(form, 'pin');
    const country = field(form, 'country');
    const { phoneE164 } = await startPhoneLink({
      userId: user.id,
      phone: values.phone,
      defaultCountry: country || undefined,
      pin: pin || undefined,
      ip: await clientIp(),
    });
    return { values: { phone: phoneE164, country: values.country }, notice: `We sent a code to ${phoneE164}.` };
  } catch (error) {
    return formError(error, values);
  }
}

export async function confirmPhoneLinkAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { phone: field(form, 'phone') };
  try {
    const user = await requireUserForAction();
    await confirmPhoneLink({ userId: user.id, phone: values.phone, code: field(form, 'code') });
    await renewThisSession(user.id);
  } catch (error) {
    return formError(error, values);
  }
  redirect('/account/phone?linked=1');
}

export async function unlinkPhoneAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await unlinkPhone({ userId: user.id, pin: field(form, 'pin') });
    await renewThisSession(user.id);
  } catch (error) {
    return formError(error);
  }
  redirect('/account/phone?unlinked=1');
}

export async function requestPinResetAction(_state: FormState, _form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await requestPinResetCode({ userId: user.id, ip: await clientIp() });
    return { notice: 'We sent a code to your phone.' };
  } catch (error) {
    return formError(error);
  }
}

export async function resetPinAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await resetPinWithPhone({
      userId: user.id,
      code: field(form, 'code'),
      pin: field(form, 'pin'),
      confirm: field(form, 'confirm'),
      ip: await clientIp(),
    });
    await renewThisSession(user.id);
  } catch (error) {
    return formError(error);
  }
  redirect('/wallet?pin=reset');
}

export interface ExportState extends FormState {
  exported?: { privateKey: string; format: string; address: string };
}

export async function exportKeyAction(_state: ExportState, form: FormData): Promise<ExportState> {
  try {
    const user = await requireUserForAction();
    const list = await headers();
    const exported = await exportPrivateKey({
      userId: user.id,
      walletId: field(form, 'walletId'),
      pin: field(form, 'pin'),
      passkeyResponse: field(form, 'passkeyResponse') || undefined,
      ip: clientIpFrom(list),
      userAgent: list.get('user-agent'),
    });
    return { exported };
  } catch (error) {
    return formError(error);
  }
}

export interface BecomeMerchantState extends FormState {
  testKey?: string;
}

export async function becomeMerchantAction(_state: BecomeMerchantState, form: FormData): Promise<BecomeMerchantState> {
  const values = { businessName: field(form, 'businessName') };
  try {
    const user = await requireUserForAction();
    const { testKey } = await becomeMerchant({ userId: user.id, businessName: values.businessName });
    return { testKey: testKey.plaintext, values };
  } catch (error) {
    return formError(error, values);
  }
}
