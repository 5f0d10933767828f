'use server';
/**
 * Server actions of the sign-up / sign-in pages. Each parses its input, calls one domain verb, and
 * either redirects to the next step or answers the error through the action wrapper (lib/api/server-actions.ts):
 * forms get `FormState` (`publicAction`), the wallet and passkey buttons `ActionResult` (`publicCall`).
 */
import { redirect } from 'next/navigation';
import { z } from 'zod';
import { completeEmailSignIn, startEmailSignIn } from '@/lib/accounts/email-sign-in';
import { completeEmailSignUp, startEmailSignUp } from '@/lib/accounts/email-sign-up';
import { emailSchema } from '@/lib/accounts/email';
import { issueSiweNonce, signInWithEthereum, siweSignInSchema } from '@/lib/accounts/ethereum-sign-in';
import { completeEmailVerification, startEmailVerification } from '@/lib/accounts/verify-email';
import { signIn, signOut } from '@/lib/auth/auth';
import { consumeAuthRateLimit, forgiveAuthRateLimit } from '@/lib/rate-limit/auth-rate-limit';
import { safeReturnPath } from '@/lib/auth/return-path';
import { signInDestination } from '@/lib/auth/sign-in-destination';
import { createSignInTicket } from '@/lib/auth/sign-in-ticket';
import { revokeAllSessions } from '@/lib/accounts/revoke-sessions';
import { getSecondFactorPendingUserId, getSessionUser, requireUserForAction } from '@/lib/auth/session';
import { passkeyAssertionOptions } from '@/lib/accounts/two-factor/passkeys';
import { verifySecondFactor } from '@/lib/accounts/two-factor/second-factor';
import { parseOrThrow } from '@/lib/api/parse';
import { publicAction, publicCall } from '@/lib/api/server-actions';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';

const codeSchema = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'Enter the 6 digits from the e-mail.');

/** The passkey button's second step: the browser's assertion (JSON text) and where to go after. */
const passkeySignInSchema = z.object({ response: z.string().min(1).max(64_000), callbackUrl: z.string().max(2048).optional() });

function parseField<T>(schema: z.ZodType<T>, value: FormDataEntryValue | null, param: string, label: string): T {
  const result = schema.safeParse(typeof value === 'string' ? value : '');
  if (!result.success) {
    const message = result.error.issues[0]!.message;
    // Schema messages are either fragments ("is not an e-mail address") or whole sentences.
    throw new AppError('invalid_request', /^[a-z]/.test(message) ? `${label} ${message}.` : message, { param });
  }
  return result.data;
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

const emailValue = (form: FormData) => ({ email: String(form.get('email') ?? '') });

export const requestSignUpCode = publicAction({ values: emailValue }, async ({ ip }, { form }) => {
  const callbackUrl = returnPath(form.get('callbackUrl'));
  const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
  await consumeAuthRateLimit({ ip: ip ?? 'local', address: email });
  await startEmailSignUp({ email });
  redirect(`/signup/code?email=${encodeURIComponent(email)}&callbackUrl=${encodeURIComponent(callbackUrl)}`);
});

export const confirmSignUpCode = publicAction({ values: emailValue }, async ({ ip }, { form, values }) => {
  const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
  const code = parseField(codeSchema, form.get('code'), 'code', 'Code');
  await consumeAuthRateLimit({ ip: ip ?? 'local', address: email });
  await completeEmailSignUp({ email, code });
  // Spec rule 3: registration never signs in; the user logs in again with a new code.
  const callbackUrl = returnPath(form.get('callbackUrl'));
  redirect(`/signin?email=${encodeURIComponent(values.email)}&registered=1&callbackUrl=${encodeURIComponent(callbackUrl)}`);
});

export const requestSignInCode = publicAction(
  { values: (form) => ({ email: String(form.get('email') ?? ''), callbackUrl: String(form.get('callbackUrl') ?? '') }) },
  async ({ ip }, { form, values }) => {
    const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
    await consumeAuthRateLimit({ ip: ip ?? 'local', address: email });
    await startEmailSignIn({ email });
    redirect(`/signin/code?email=${encodeURIComponent(email)}&callbackUrl=${encodeURIComponent(returnPath(values.callbackUrl))}`);
  },
);

export const confirmSignInCode = publicAction({ values: emailValue }, async ({ ip }, { form }) => {
  const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
  const code = parseField(codeSchema, form.get('code'), 'code', 'Code');
  await consumeAuthRateLimit({ ip: ip ?? 'local', address: email });
  const { userId } = await completeEmailSignIn({ email, code });
  await forgiveAuthRateLimit({ ip: ip ?? 'local', address: email });
  const ticket = createSignInTicket(userId);
  const redirectTo = await signInDestination({ userId, emailVerified: true, returnTo: returnPath(form.get('callbackUrl')) });
  await signIn('ticket', { ticket, redirectTo });
  return {};
});

export const resendCode = publicAction({ values: emailValue }, async ({ ip }, { form, values }) => {
  const purpose = String(form.get('purpose'));
  const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
  await consumeAuthRateLimit({ ip: ip ?? 'local', address: email });
  if (purpose === 'signup') await startEmailSignUp({ email });
  else if (purpose === 'signin') await startEmailSignIn({ email });
  else throw new AppError('invalid_request', 'Unknown code purpose.');
  return { values, notice: 'A new code is on its way.' };
});

/** Sign in with Ethereum, step 1: a fresh server nonce for the message to sign. */
export const getSiweNonce = publicCall(async ({ ip }) => {
  await consumeAuthRateLimit({ ip: ip ?? 'local' });
  return { nonce: await issueSiweNonce() };
});

/** Sign in with Ethereum, step 2: verify the signed message and open a session. */
export const signInWithSiwe = publicCall(async ({ ip }, input: { message: string; signature: string }) => {
  const signed = parseOrThrow(siweSignInSchema, input);
  const appUrl = new URL(env().APP_URL);
  await consumeAuthRateLimit({ ip: ip ?? 'local' });
  const { userId } = await signInWithEthereum({ ...signed, domain: appUrl.host, origin: appUrl.origin });
  await signIn('ticket', { ticket: createSignInTicket(userId), redirect: false });
  const user = await getSessionUser().catch(() => undefined);
  return { redirectTo: await signInDestination({ userId, emailVerified: Boolean(user?.emailVerifiedAt), returnTo: '/wallet' }) };
});

/** Sign-in, second step: a code from the authenticator app, or a recovery code. */
export const confirmSecondFactorAction = publicAction({}, async ({ ip }, { form }) => {
  const redirectTo = returnPath(form.get('callbackUrl'));
  const userId = await secondFactorPendingUserId();
  await consumeAuthRateLimit({ ip: ip ?? 'local', address: `2fa:${userId}` });
  const recoveryCode = String(form.get('recoveryCode') ?? '').trim();
  await verifySecondFactor(
    userId,
    recoveryCode ? { method: 'recovery', code: recoveryCode } : { method: 'totp', code: String(form.get('code') ?? '').trim() },
  );
  await signIn('ticket', { ticket: createSignInTicket(userId, { secondFactorPassed: true }), redirectTo });
  return {};
});

/** Sign-in, second step with a passkey: the options for the browser. */
export const passkeySignInOptionsAction = publicCall(async () => ({
  options: (await passkeyAssertionOptions({ userId: await secondFactorPendingUserId(), ceremony: 'sign_in' })) as unknown,
}));

/** Sign-in, second step with a passkey: the browser's assertion. */
export const passkeySignInAction = publicCall(async ({ ip }, input: { response: string; callbackUrl?: string }) => {
  const { response, callbackUrl } = parseOrThrow(passkeySignInSchema, input);
  const userId = await secondFactorPendingUserId();
  await consumeAuthRateLimit({ ip: ip ?? 'local', address: `2fa:${userId}` });
  await verifySecondFactor(userId, { method: 'passkey', response });
  await signIn('ticket', { ticket: createSignInTicket(userId, { secondFactorPassed: true }), redirect: false });
  return { redirectTo: returnPath(callbackUrl) };
});

/** The signed-in account, e-mail verified or not (these two actions verify it). */
async function sessionUserOrRefuse() {
  const user = await getSessionUser();
  if (!user) throw new AppError('unauthenticated', 'Your session has ended. Sign in again.');
  return user;
}

export const requestEmailVerificationCode = publicAction({ values: emailValue }, async ({ ip }, { form }) => {
  const user = await sessionUserOrRefuse();
  const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
  await consumeAuthRateLimit({ ip: ip ?? 'local', address: email });
  await startEmailVerification({ userId: user.id, email });
  return { values: { email }, notice: `We sent a code to ${email}.` };
});

export const confirmEmailVerification = publicAction({ values: emailValue }, async (_ctx, { form }) => {
  const user = await sessionUserOrRefuse();
  const email = parseField(emailSchema, form.get('email'), 'email', 'E-mail');
  const code = parseField(codeSchema, form.get('code'), 'code', 'Code');
  await completeEmailVerification({ userId: user.id, email, code });
  redirect('/wallet');
});

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
  // A <form action> has no state to answer into: an unknown provider (a form the page did not send) goes
  // back to the sign-in page with its generic error, not to the error boundary.
  if (provider !== 'google' && provider !== 'apple') redirect('/signin?error=provider');
  await signIn(provider, { redirectTo: returnPath(form.get('callbackUrl')) });
}
