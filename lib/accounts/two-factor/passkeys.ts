/**
 * Passkeys (WebAuthn, with @simplewebauthn/server): a second factor at sign-in and a stand-in for
 * the PIN in step-up confirmations (lib/accounts/step-up.ts).
 *
 *  - the relying party is APP_URL: its host is the RP ID, its origin the only accepted origin;
 *  - every ceremony uses a challenge the server issued for that account and that ceremony
 *    (`webauthn_challenges`), accepted once, within 5 minutes;
 *  - sign-in and step-up require user verification (the device's PIN or biometrics), so a passkey
 *    alone proves "something you have" and "something you are/know";
 *  - a signature counter that does not grow (when the authenticator keeps one) means a cloned
 *    authenticator: the assertion is refused.
 */
import 'server-only';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { passkeys, webauthnChallenges, type Passkey, type WebauthnCeremony } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { cleanDisplayText } from '@/lib/text';

const CHALLENGE_TTL_MS = 5 * 60_000;

function relyingParty(): { rpID: string; origin: string } {
  const url = new URL(env().APP_URL);
  return { rpID: url.hostname, origin: url.origin };
}

async function storeChallenge(userId: string, ceremony: WebauthnCeremony, challenge: string): Promise<void> {
  await getDb()
    .insert(webauthnChallenges)
    .values({ challenge, userId, ceremony, expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS) });
}

/** For expectedChallenge: true once, for a live challenge of this account and ceremony. */
function consumeChallenge(userId: string, ceremony: WebauthnCeremony) {
  return async (challenge: string): Promise<boolean> => {
    const [used] = await getDb()
      .update(webauthnChallenges)
      .set({ usedAt: new Date() })
      .where(
        and(
          eq(webauthnChallenges.challenge, challenge),
          eq(webauthnChallenges.userId, userId),
          eq(webauthnChallenges.ceremony, ceremony),
          isNull(webauthnChallenges.usedAt),
          gt(webauthnChallenges.expiresAt, new Date()),
        ),
      )
      .returning({ challenge: webauthnChallenges.challenge });
    return used !== undefined;
  };
}

export async function listPasskeys(userId: string): Promise<Passkey[]> {
  return getDb().select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt));
}

export async function passkeyRegistrationOptions(input: {
  userId: string;
  userName: string;
}): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await listPasskeys(input.userId);
  const options = await generateRegistrationOptions({
    rpName: 'Chargeport',
    rpID: relyingParty().rpID,
    userName: input.userName,
    userID: new TextEncoder().encode(input.userId),
    attestationType: 'none',
    excludeCredentials: existing.map((key) => ({ id: key.credentialId, transports: key.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
  });
  await storeChallenge(input.userId, 'register', options.challenge);
  return options;
}

/** Parses what the browser sent (a JSON string from a form, or an object). */
function parseResponse<T>(value: unknown): T {
  try {
    const parsed = typeof value === 'string' ? JSON.parse(value) : value;
    if (parsed && typeof parsed === 'object' && typeof (parsed as { id?: unknown }).id === 'string') return parsed as T;
  } catch {
    // answered below
  }
  throw new AppError('invalid_request', 'The passkey answer could not be read. Try again.', { param: 'passkey' });
}

/**
 * Stores a passkey from a registration made with passkeyRegistrationOptions. No check of who asks:
 * sessions go through addPasskey (add-passkey.ts), which verifies the step-up or e-mail code first.
 */
export async function registerPasskey(input: { userId: string; name: string; response: unknown }): Promise<Passkey> {
  const name = cleanDisplayText(input.name).slice(0, 60) || 'Passkey';
  const { rpID, origin } = relyingParty();
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: parseResponse<RegistrationResponseJSON>(input.response),
      expectedChallenge: consumeChallenge(input.userId, 'register'),
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('invalid_request', `The passkey was not added: ${(error as Error).message}`, { param: 'passkey' });
  }
  if (!verification.verified) throw new AppError('invalid_request', 'The passkey was not added. Try again.', { param: 'passkey' });
  const { credential } = verification.registrationInfo;
  const [row] = await getDb()
    .insert(passkeys)
    .values({
      id: newId('passkey'),
      userId: input.userId,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
    })
    .onConflictDoNothing()
    .returning();
  if (!row) throw new AppError('invalid_request', 'This passkey is already registered.', { param: 'passkey' });
  return row;
}

/** Options for a sign-in or step-up assertion with one of the account's passkeys. */
export async function passkeyAssertionOptions(input: {
  userId: string;
  ceremony: 'sign_in' | 'step_up';
}): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const keys = await listPasskeys(input.userId);
  if (keys.length === 0) throw new AppError('invalid_request', 'This account has no passkey.', { param: 'passkey' });
  const options = await generateAuthenticationOptions({
    rpID: relyingParty().rpID,
    allowCredentials: keys.map((key) => ({ id: key.credentialId, transports: key.transports as never })),
    userVerification: 'required',
  });
  await storeChallenge(input.userId, input.ceremony, options.challenge);
  return options;
}

/**
 * Checks an assertion made with options from passkeyAssertionOptions; null when it does not prove the
 * account, else when the passkey was added (step-up refuses a live confirmation while it cools down).
 */
export async function verifyPasskeyAssertion(input: {
  userId: string;
  ceremony: 'sign_in' | 'step_up';
  response: unknown;
}): Promise<{ addedAt: Date } | null> {
  const response = parseResponse<AuthenticationResponseJSON>(input.response);
  const [key] = await getDb()
    .select()
    .from(passkeys)
    .where(and(eq(passkeys.userId, input.userId), eq(passkeys.credentialId, response.id)));
  if (!key) return null;
  const { rpID, origin } = relyingParty();
  try {
    const verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: consumeChallenge(input.userId, input.ceremony),
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: {
        id: key.credentialId,
        publicKey: Buffer.from(key.publicKey, 'base64url'),
        counter: key.counter,
        transports: key.transports,
      },
      requireUserVerification: true,
    });
    if (!verification.verified) return null;
    await getDb()
      .update(passkeys)
      .set({ counter: verification.authenticationInfo.newCounter, lastUsedAt: new Date() })
      .where(eq(passkeys.id, key.id));
    return { addedAt: key.createdAt };
  } catch {
    // A wrong challenge, origin, signature or counter: not this account's proof.
    return null;
  }
}

/** Removes one passkey; sessions go through removeSecondFactor (remove-second-factor.ts), which checks the proof. */
export async function removePasskey(input: { userId: string; passkeyId: string }): Promise<void> {
  const removed = await getDb()
    .delete(passkeys)
    .where(and(eq(passkeys.id, input.passkeyId), eq(passkeys.userId, input.userId)))
    .returning({ id: passkeys.id });
  if (!removed.length) throw new AppError('not_found', 'No such passkey on this account.', { param: 'passkeyId' });
}
