'use server';
/**
 * Server actions of Account → Security: two-factor sign-in (authenticator app, passkeys, recovery
 * codes), and the passkey options every step-up form asks for. Turning a factor on ends the account's
 * other sessions (they were opened without it); removing one needs the PIN or a passkey.
 */
import QRCode from 'qrcode';
import { revalidatePath } from 'next/cache';
import { verifyStepUp } from '@/lib/accounts/step-up';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
import { passkeyAssertionOptions, passkeyRegistrationOptions, registerPasskey, removePasskey } from '@/lib/accounts/two-factor/passkeys';
import { renewRecoveryCodes, countUnusedRecoveryCodes, deleteRecoveryCodes } from '@/lib/accounts/two-factor/recovery-codes';
import { hasSecondFactor } from '@/lib/accounts/two-factor/second-factor';
import { confirmTotpEnrolment, removeTotp, startTotpEnrolment } from '@/lib/accounts/two-factor/totp';
import { formError, type FormState } from '@/lib/auth/form-state';
import { endOtherSessions } from '@/lib/auth/end-other-sessions';
import { requireUserForAction } from '@/lib/auth/session';
import { AppError } from '@/lib/errors';

const PAGE = '/account/security';
const field = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

export interface SecurityFormState extends FormState {
  totp?: { secret: string; qrDataUrl: string };
  /** Shown once, right after two-factor sign-in was turned on or the codes were renewed. */
  recoveryCodes?: string[];
}

/** After a first factor is on: recovery codes (if the account has none) and the other sessions end. */
async function afterFactorAdded(userId: string): Promise<string[] | undefined> {
  const codes = (await countUnusedRecoveryCodes(userId)) === 0 ? await renewRecoveryCodes(userId) : undefined;
  await endOtherSessions(userId);
  // No revalidatePath here: the page would re-render in this request with the old (now revoked)
  // session cookie and sign the user out. The form shows the new state itself.
  return codes;
}

export async function startTotpAction(_state: SecurityFormState, _form: FormData): Promise<SecurityFormState> {
  try {
    const user = await requireUserForAction();
    const { secret, uri } = await startTotpEnrolment({ userId: user.id, label: user.email ?? user.id });
    return { totp: { secret, qrDataUrl: await QRCode.toDataURL(uri, { margin: 1, width: 200 }) } };
  } catch (error) {
    return formError(error);
  }
}

export async function confirmTotpAction(_state: SecurityFormState, form: FormData): Promise<SecurityFormState> {
  try {
    const user = await requireUserForAction();
    await confirmTotpEnrolment({ userId: user.id, code: field(form, 'code') });
    return { notice: 'Authenticator app turned on. Your other sessions were signed out.', recoveryCodes: await afterFactorAdded(user.id) };
  } catch (error) {
    return formError(error);
  }
}

export async function removeTotpAction(_state: SecurityFormState, form: FormData): Promise<SecurityFormState> {
  try {
    const user = await requireUserForAction();
    await verifyStepUp({ userId: user.id, proof: stepUpFromForm(form) });
    await removeTotp(user.id);
    if (!(await hasSecondFactor(user.id))) await deleteRecoveryCodes(user.id);
    revalidatePath(PAGE);
    return { notice: 'Authenticator app removed.' };
  } catch (error) {
    return formError(error);
  }
}

export async function passkeyRegistrationOptionsAction(): Promise<{ options?: unknown; error?: string }> {
  try {
    const user = await requireUserForAction();
    return { options: await passkeyRegistrationOptions({ userId: user.id, userName: user.email ?? user.id }) };
  } catch (error) {
    if (error instanceof AppError) return { error: error.message };
    throw error;
  }
}

export async function registerPasskeyAction(input: {
  name: string;
  response: string;
}): Promise<{ error?: string; recoveryCodes?: string[] }> {
  try {
    const user = await requireUserForAction();
    await registerPasskey({ userId: user.id, name: input.name, response: input.response });
    return { recoveryCodes: await afterFactorAdded(user.id) };
  } catch (error) {
    if (error instanceof AppError) return { error: error.message };
    throw error;
  }
}

export async function removePasskeyAction(_state: SecurityFormState, form: FormData): Promise<SecurityFormState> {
  try {
    const user = await requireUserForAction();
    await verifyStepUp({ userId: user.id, proof: stepUpFromForm(form) });
    await removePasskey({ userId: user.id, passkeyId: field(form, 'passkeyId') });
    if (!(await hasSecondFactor(user.id))) await deleteRecoveryCodes(user.id);
    revalidatePath(PAGE);
    return { notice: 'Passkey removed.' };
  } catch (error) {
    return formError(error);
  }
}

export async function renewRecoveryCodesAction(_state: SecurityFormState, form: FormData): Promise<SecurityFormState> {
  try {
    const user = await requireUserForAction();
    if (!(await hasSecondFactor(user.id))) throw new AppError('invalid_request', 'Turn on two-factor sign-in first.');
    await verifyStepUp({ userId: user.id, proof: stepUpFromForm(form) });
    return { recoveryCodes: await renewRecoveryCodes(user.id), notice: 'New recovery codes: the old ones no longer work.' };
  } catch (error) {
    return formError(error);
  }
}

/** Options for confirming a money or ownership change with a passkey instead of the PIN (StepUpFields). */
export async function stepUpPasskeyOptionsAction(): Promise<{ options?: unknown; error?: string }> {
  try {
    const user = await requireUserForAction();
    return { options: await passkeyAssertionOptions({ userId: user.id, ceremony: 'step_up' }) };
  } catch (error) {
    if (error instanceof AppError) return { error: error.message };
    throw error;
  }
}
