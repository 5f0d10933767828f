'use server';
/**
 * Server actions of Account → Security: two-factor sign-in (authenticator app, passkeys, recovery
 * codes), the e-mail code for accounts with no PIN and no passkey, and the passkey options every
 * step-up form asks for. Adding, removing or renewing needs the PIN, a passkey or that e-mail code
 * (lib/accounts/two-factor/factor-change-proof.ts) and e-mails the account; a refused attempt is
 * e-mailed too (by the proof check itself, lib/accounts/reporting-refusal.ts). Turning a factor on ends the account's other sessions (they were opened without it).
 */
import QRCode from 'qrcode';
import { revalidatePath } from 'next/cache';
import { requestSecurityCode } from '@/lib/accounts/request-security-code';
import { stepUpFromForm } from '@/lib/accounts/step-up-form';
import { addPasskey, registerPasskeyInputSchema } from '@/lib/accounts/two-factor/add-passkey';
import type { FactorChangeProof } from '@/lib/accounts/two-factor/factor-change-proof';
import { passkeyAssertionOptions, passkeyRegistrationOptions } from '@/lib/accounts/two-factor/passkeys';
import { renewRecoveryCodes, countUnusedRecoveryCodes } from '@/lib/accounts/two-factor/recovery-codes';
import { removeSecondFactor } from '@/lib/accounts/two-factor/remove-second-factor';
import { replaceRecoveryCodes } from '@/lib/accounts/two-factor/replace-recovery-codes';
import { startTotpEnrolment } from '@/lib/accounts/two-factor/totp';
import { turnOnTotp } from '@/lib/accounts/two-factor/turn-on-totp';
import type { FormState } from '@/lib/auth/form-state';
import { parseOrThrow } from '@/lib/api/parse';
import { userAction, userCall } from '@/lib/api/server-actions';
import { endOtherSessions } from '@/lib/auth/end-other-sessions';

const PAGE = '/account/security';
const field = (form: FormData, name: string) => String(form.get(name) ?? '').trim();

export interface SecurityFormState extends FormState {
  totp?: { secret: string; qrDataUrl: string };
  /** Shown once, right after two-factor sign-in was turned on or the codes were renewed. */
  recoveryCodes?: string[];
}

/** The PIN or passkey of a step-up form, and the e-mail code field of FactorProofFields. */
function factorProofFromForm(form: FormData): FactorChangeProof {
  return { ...stepUpFromForm(form), emailCode: field(form, 'emailCode') || undefined };
}

/** After a first factor is on: recovery codes (if the account has none) and the other sessions end. */
async function afterFactorAdded(userId: string): Promise<string[] | undefined> {
  const codes = (await countUnusedRecoveryCodes(userId)) === 0 ? await renewRecoveryCodes(userId) : undefined;
  await endOtherSessions(userId);
  // No revalidatePath here: the page would re-render in this request with the old (now revoked)
  // session cookie and sign the user out. The form shows the new state itself.
  return codes;
}

/** E-mails a code that confirms a factor change, for an account with no PIN and no passkey. */
export const requestFactorCodeAction = userAction<SecurityFormState>({}, async ({ user, ip }) => {
  const { sentTo } = await requestSecurityCode({ userId: user.id, reason: 'factor_change', ip });
  return { notice: `We sent a code to ${sentTo}. Enter it below.` };
});

export const startTotpAction = userAction<SecurityFormState>({}, async ({ user }) => {
  const { secret, uri } = await startTotpEnrolment({ userId: user.id, label: user.email ?? user.id });
  return { totp: { secret, qrDataUrl: await QRCode.toDataURL(uri, { margin: 1, width: 200 }) } };
});

export const confirmTotpAction = userAction<SecurityFormState>({}, async ({ user, ip }, { form }) => {
  await turnOnTotp({ userId: user.id, code: field(form, 'code'), proof: factorProofFromForm(form), ip });
  return { notice: 'Authenticator app turned on. Your other sessions were signed out.', recoveryCodes: await afterFactorAdded(user.id) };
});

export const removeTotpAction = userAction<SecurityFormState>({}, async ({ user, ip }, { form }) => {
  await removeSecondFactor({ userId: user.id, factor: { kind: 'totp' }, proof: factorProofFromForm(form), ip });
  revalidatePath(PAGE);
  return { notice: 'Authenticator app removed.' };
});

/** Called from the passkey form: the browser's registration options. */
export const passkeyRegistrationOptionsAction = userCall(async ({ user }) => ({
  options: (await passkeyRegistrationOptions({ userId: user.id, userName: user.email ?? user.id })) as unknown,
}));

export const registerPasskeyAction = userCall(
  async (
    { user, ip },
    input: { name: string; response: string; pin?: string; passkeyResponse?: string; emailCode?: string },
  ): Promise<{ recoveryCodes?: string[] }> => {
    const { name, response, ...given } = parseOrThrow(registerPasskeyInputSchema, input);
    const proof: FactorChangeProof = {
      pin: given.pin?.trim() || undefined,
      passkeyResponse: given.passkeyResponse?.trim() || undefined,
      emailCode: given.emailCode?.trim() || undefined,
    };
    await addPasskey({ userId: user.id, name, response, proof, ip });
    return { recoveryCodes: await afterFactorAdded(user.id) };
  },
);

export const removePasskeyAction = userAction<SecurityFormState>({}, async ({ user, ip }, { form }) => {
  await removeSecondFactor({
    userId: user.id,
    factor: { kind: 'passkey', passkeyId: field(form, 'passkeyId') },
    proof: factorProofFromForm(form),
    ip,
  });
  revalidatePath(PAGE);
  return { notice: 'Passkey removed.' };
});

export const renewRecoveryCodesAction = userAction<SecurityFormState>({}, async ({ user, ip }, { form }) => {
  const codes = await replaceRecoveryCodes({ userId: user.id, proof: factorProofFromForm(form), ip });
  return { recoveryCodes: codes, notice: 'New recovery codes: the old ones no longer work.' };
});

/** Options for confirming a money or ownership change with a passkey instead of the PIN (StepUpFields). */
export const stepUpPasskeyOptionsAction = userCall(async ({ user }) => ({
  options: (await passkeyAssertionOptions({ userId: user.id, ceremony: 'step_up' })) as unknown,
}));
