'use server';
/**
 * Server actions of the signed-in account pages: PIN, phone, forgot-PIN, key export, merchant upgrade.
 * Each parses the form, calls one domain verb, and returns form state (errors next to the field).
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { changePin, requestPinResetCode, resetPinWithPhone, setPin } from '@/lib/accounts/pin';
import { confirmPhoneLink, startPhoneLink, unlinkPhone } from '@/lib/accounts/phone';
import { formError, type FormState } from '@/lib/auth/form-state';
import { requireUserForAction } from '@/lib/auth/session';
import { becomeMerchant } from '@/lib/merchants/become-merchant';
import { exportPrivateKey } from '@/lib/wallets/export-private-key';
import { clientIpFrom } from '@/lib/http/client-ip';

const field = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

export async function setPinAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await setPin({ userId: user.id, pin: field(form, 'pin'), confirm: field(form, 'confirm') });
  } catch (error) {
    return formError(error);
  }
  const next = field(form, 'next');
  const target = new URL(next.startsWith('/') && !next.startsWith('//') ? next : '/wallet', 'http://local');
  target.searchParams.set('pin', 'set');
  redirect(`${target.pathname}${target.search}`);
}

export async function changePinAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await changePin({ userId: user.id, oldPin: field(form, 'oldPin'), pin: field(form, 'pin'), confirm: field(form, 'confirm') });
    return { notice: 'Your PIN is changed.' };
  } catch (error) {
    return formError(error);
  }
}

export async function startPhoneLinkAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { phone: field(form, 'phone') };
  try {
    const user = await requireUserForAction();
    const pin = field(form, 'pin');
    const { phoneE164 } = await startPhoneLink({ userId: user.id, phone: values.phone, pin: pin || undefined });
    return { values: { phone: phoneE164 }, notice: `We sent a code to ${phoneE164}.` };
  } catch (error) {
    return formError(error, values);
  }
}

export async function confirmPhoneLinkAction(_state: FormState, form: FormData): Promise<FormState> {
  const values = { phone: field(form, 'phone') };
  try {
    const user = await requireUserForAction();
    await confirmPhoneLink({ userId: user.id, phone: values.phone, code: field(form, 'code') });
  } catch (error) {
    return formError(error, values);
  }
  redirect('/account/phone?linked=1');
}

export async function unlinkPhoneAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await unlinkPhone({ userId: user.id, pin: field(form, 'pin') });
  } catch (error) {
    return formError(error);
  }
  redirect('/account/phone?unlinked=1');
}

export async function requestPinResetAction(_state: FormState, _form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await requestPinResetCode({ userId: user.id });
    return { notice: 'We sent a code to your phone.' };
  } catch (error) {
    return formError(error);
  }
}

export async function resetPinAction(_state: FormState, form: FormData): Promise<FormState> {
  try {
    const user = await requireUserForAction();
    await resetPinWithPhone({ userId: user.id, code: field(form, 'code'), pin: field(form, 'pin'), confirm: field(form, 'confirm') });
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
