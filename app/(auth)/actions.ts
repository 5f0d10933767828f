'use server';
/**
 * Server actions of the sign-up / sign-in pages. Each parses its input, calls one domain verb, and
 * either redirects to the next step or answers the error through `actionError` (lib/action-error.ts):
 * forms get `FormState` (`formError`), the wallet and passkey buttons `ActionResult` (`{ data }` or `{ error }`).
 */
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { completeEmailSignIn, completeEmailSignUp, startEmailSignIn, startEmailSignUp } from '@/lib/accounts/email-sign-up';
import { emailSchema } from '@/lib/accounts/email';
import { issueSiweNonce, signInWithEthereum } from '@/lib/accounts/ethereum-sign-in';
import { completeEmailVerification, startEmailVerification } from '@/lib/accounts/verify-email';
import { signIn, signOut } from '@/lib/auth/auth';
import { formError, type FormState } from '@/lib/auth/form-state';
import { consumeAuthRateLimit, forgiveAuthRateLimit } from '@/lib/rate-limit/auth-rate-limit';
import { safeReturnPath } from '@/lib/auth/return-path';
import { signInDestination } from '@/lib/auth/sign-in-destination';
import { createSignInTicket } from '@/lib/auth/sign-in-ticket';
import { revokeAllSessions } from '@/lib/accounts/revoke-sessions';
import { getSecondFactorPendingUserId, getSessionUser, requireUserForAction } from '@/lib/auth/session';
import { passkeyAssertionOptions } from '@/lib/accounts/two-factor/passkeys';
import { verifySecondFactor } from '@/lib/accounts/two-factor/second-factor';
import { actionResult, type ActionResult } from '@/lib/action-error';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { clientIpFrom } from '@/lib/http/client-ip';

const codeSchema = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'Enter the 6 digits from the e-mail.');

function parseField<T>(schema: z.ZodType<T>, value: FormDataEntryValue | null, param: string, label: string): T {
  const result = schema.safeParse(typeof value === 'string' ? value : '');
  if (!result.success) {
    const message = result.error.issues[0]!.message;
    // Schema messages are either fragments ("is not an e-mail address") or whole sentences.
    throw new AppError('invalid_request', /^[a-z]/.test(message) ? `${label} ${message}.` : message, { param });
  }
  return result.data;
}

async function clientIp(): Promise<string> {
  const list = await headers();
  return clientIpFrom(list) ?? 'local';
}

/** The account waiting for its second factor; a session that is not (any more) is told to sign in again. */
async function secondFactorPendingUserId(): Promise<string> {
  const userId = await getSecondFactorPendingUserId();
  if (!userId) throw new AppError('unauthenticated', 'Your sign-in has ended. Sign in again.');
  return userId;
}

/** Only same-origin paths (lib/auth/return-path.ts): an open redirect would send a fresh session elsewhere. */
function returnPath(value: FormDataEntryValue | null | undefined): string {
  return safeReturnPath(value, { appUrl: env().APP_URL });
}

export async function requestSignUpCode(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get('email') ?? '') };
  const callbackUrl = returnPath(form.get('callbackUrl'));
  try {
    const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
    await consumeAuthRateLimit({ ip: await clientIp(), address: email });
    await startEmailSignUp({ email });
    values.email = email;
  } catch (error) {
    return formError(error, values);
  }
  redirect(`/signup/code?email=${encodeURIComponent(values.email)}&callbackUrl=${encodeURIComponent(callbackUrl)}`);
}

export async function confirmSignUpCode(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get('email') ?? '') };
  try {
    const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
    const code = parseField(codeSchema, form.get('code'), 'code', 'Code');
    await consumeAuthRateLimit({ ip: await clientIp(), address: email });
    await completeEmailSignUp({ email, code });
  } catch (error) {
    return formError(error, values);
  }
  // Spec rule 3: registration never signs in; the user logs in again with a new code.
  const callbackUrl = returnPath(form.get('callbackUrl'));
  redirect(`/signin?email=${encodeURIComponent(values.email)}&registered=1&callbackUrl=${encodeURIComponent(callbackUrl)}`);
}

export async function requestSignInCode(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get('email') ?? ''), callbackUrl: String(form.get('callbackUrl') ?? '') };
  try {
    const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
    await consumeAuthRateLimit({ ip: await clientIp(), address: email });
    await startEmailSignIn({ email });
    values.email = email;
  } catch (error) {
    return formError(error, values);
  }
  redirect(`/signin/code?email=${encodeURIComponent(values.email)}&callbackUrl=${encodeURIComponent(returnPath(values.callbackUrl))}`);
}

export async function confirmSignInCode(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get('email') ?? '') };
  let ticket: string;
  let redirectTo = returnPath(form.get('callbackUrl'));
  try {
    const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
    const code = parseField(codeSchema, form.get('code'), 'code', 'Code');
    const ip = await clientIp();
    await consumeAuthRateLimit({ ip, address: email });
    const { userId } = await completeEmailSignIn({ email, code });
    await forgiveAuthRateLimit({ ip, address: email });
    ticket = createSignInTicket(userId);
    redirectTo = await signInDestination({ userId, emailVerified: true, returnTo: redirectTo });
  } catch (error) {
    return formError(error, values);
  }
  await signIn('ticket', { ticket, redirectTo });
  return {};
}

export async function resendCode(_state: FormState, form: FormData): Promise<FormState> {
  const purpose = String(form.get('purpose'));
  const values = { email: String(form.get('email') ?? '') };
  try {
    const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
    await consumeAuthRateLimit({ ip: await clientIp(), address: email });
    if (purpose === 'signup') await startEmailSignUp({ email });
    else if (purpose === 'signin') await startEmailSignIn({ email });
    else throw new AppError('invalid_request', 'Unknown code purpose.');
    return { values, notice: 'A new code is on its way.' };
  } catch (error) {
    return formError(error, values);
  }
}

/** Sign in with Ethereum, step 1: a fresh server nonce for the message to sign. */
export async function getSiweNonce(): Promise<ActionResult<{ nonce: string }>> {
  return actionResult(async () => {
    await consumeAuthRateLimit({ ip: await clientIp() });
    return { nonce: await issueSiweNonce() };
  });
}

/** Sign in with Ethereum, step 2: verify the signed message and open a session. */
export async function signInWithSiwe(input: { message: string; signature: string }): Promise<ActionResult<{ redirectTo: string }>> {
  return actionResult(async () => {
    const appUrl = new URL(env().APP_URL);
    await consumeAuthRateLimit({ ip: await clientIp() });
    const { userId } = await signInWithEthereum({ ...input, domain: appUrl.host, origin: appUrl.origin });
    await signIn('ticket', { ticket: createSignInTicket(userId), redirect: false });
    const user = await getSessionUser().catch(() => undefined);
    return { redirectTo: await signInDestination({ userId, emailVerified: Boolean(user?.emailVerifiedAt), returnTo: '/wallet' }) };
  });
}

/** Sign-in, second step: a code from the authenticator app, or a recovery code. */
export async function confirmSecondFactorAction(_state: FormState, form: FormData): Promise<FormState> {
  const redirectTo = returnPath(form.get('callbackUrl'));
  let ticket: string;
  try {
    const userId = await secondFactorPendingUserId();
    await consumeAuthRateLimit({ ip: await clientIp(), address: `2fa:${userId}` });
    const recoveryCode = String(form.get('recoveryCode') ?? '').trim();
    await verifySecondFactor(
      userId,
      recoveryCode ? { method: 'recovery', code: recoveryCode } : { method: 'totp', code: String(form.get('code') ?? '').trim() },
    );
    ticket = createSignInTicket(userId, { secondFactorPassed: true });
  } catch (error) {
    return formError(error);
  }
  await signIn('ticket', { ticket, redirectTo });
  return {};
}

/** Sign-in, second step with a passkey: the options for the browser. */
export async function passkeySignInOptionsAction(): Promise<ActionResult<{ options: unknown }>> {
  return actionResult(async () => ({
    options: await passkeyAssertionOptions({ userId: await secondFactorPendingUserId(), ceremony: 'sign_in' }),
  }));
}

/** Sign-in, second step with a passkey: the browser's assertion. */
export async function passkeySignInAction(input: {
  response: string;
  callbackUrl?: string;
}): Promise<ActionResult<{ redirectTo: string }>> {
  return actionResult(async () => {
    const userId = await secondFactorPendingUserId();
    await consumeAuthRateLimit({ ip: await clientIp(), address: `2fa:${userId}` });
    await verifySecondFactor(userId, { method: 'passkey', response: input.response });
    await signIn('ticket', { ticket: createSignInTicket(userId, { secondFactorPassed: true }), redirect: false });
    return { redirectTo: returnPath(input.callbackUrl) };
  });
}

export async function requestEmailVerificationCode(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get('email') ?? '') };
  try {
    const user = await getSessionUser();
    if (!user) throw new AppError('unauthenticated', 'Your session has ended. Sign in again.');
    const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
    await consumeAuthRateLimit({ ip: await clientIp(), address: email });
    await startEmailVerification({ userId: user.id, email });
    return { values: { email }, notice: `We sent a code to ${email}.` };
  } catch (error) {
    return formError(error, values);
  }
}

export async function confirmEmailVerification(_state: FormState, form: FormData): Promise<FormState> {
  const values = { email: String(form.get('email') ?? '') };
  try {
    const user = await getSessionUser();
    if (!user) throw new AppError('unauthenticated', 'Your session has ended. Sign in again.');
    const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
    const code = parseField(codeSchema, form.get('code'), 'code', 'Code');
    await completeEmailVerification({ userId: user.id, email, code });
  } catch (error) {
    return formError(error, values);
  }
  redirect('/wallet');
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: '/signin' });
}

export async function signOutEverywhereAction(): Promise<void> {
  const user = await requireUserForAction();
  await revokeAllSessions(user.id);
  await signOut({ redirectTo: '/signin?signedOut=everywhere' });
}

export async function signInWithProvider(form: FormData): Promise<void> {
  const provider = String(form.get('provider'));
  if (provider !== 'google' && provider !== 'apple') throw new AppError('invalid_request', 'Unknown sign-in provider.');
  await signIn(provider, { redirectTo: returnPath(form.get('callbackUrl')) });
}
