import { and, desc, eq } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { authIdentities, users, verificationCodes, wallets, type CodePurpose } from '@/lib/db/schema';
import { readOutbox } from '@/lib/notifications/outbox';
import { appError, latestCode, uniqueEmail } from '@/test/accounts';
import { derivedKey, hmacHex } from './derived-key';
import { completeEmailSignIn, startEmailSignIn } from './email-sign-in';
import { completeEmailSignUp, startEmailSignUp } from './email-sign-up';
import { issueSiweNonce, signInWithEthereum } from './ethereum-sign-in';
import { signInWithOidc } from './oidc-sign-in';
import { findUserByEmail } from './find-user';
import { completeEmailVerification, startEmailVerification } from './verify-email';

async function signUp(email: string): Promise<string> {
  await startEmailSignUp({ email });
  const { userId } = await completeEmailSignUp({ email, code: latestCode(email) });
  return userId;
}

/** Codes are throttled to one a minute per address; tests move the last one back in time. */
async function allowNextCode(email: string): Promise<void> {
  await getDb()
    .update(verificationCodes)
    .set({ createdAt: new Date(Date.now() - 61_000) })
    .where(eq(verificationCodes.target, email));
}

/**
 * Makes `code` the right one for the newest code issued for this purpose and address, as if its holder
 * had received it: a code issued for an address without e-mail sign-in is never sent, and this proves
 * that even the right one opens nothing (lib/accounts/verification-codes.ts stores the HMAC of this text).
 */
async function plantCode(purpose: CodePurpose, email: string, code: string): Promise<void> {
  const [latest] = await getDb()
    .select({ id: verificationCodes.id })
    .from(verificationCodes)
    .where(and(eq(verificationCodes.purpose, purpose), eq(verificationCodes.target, email)))
    .orderBy(desc(verificationCodes.createdAt))
    .limit(1);
  await getDb()
    .update(verificationCodes)
    .set({ codeHash: hmacHex(derivedKey('verification-codes'), `${purpose}\n${email}\n${code}`) })
    .where(eq(verificationCodes.id, latest!.id));
}

/** An account created by Sign in with Ethereum, through the real verb (its e-mail not verified yet). */
async function ethereumAccount(): Promise<string> {
  const account = privateKeyToAccount(generatePrivateKey());
  const message = createSiweMessage({
    address: account.address,
    chainId: 137,
    domain: 'localhost:3999',
    uri: 'http://localhost:3999',
    nonce: await issueSiweNonce(),
    version: '1',
    issuedAt: new Date(),
  });
  const signature = await account.signMessage({ message });
  return (await signInWithEthereum({ message, signature, domain: 'localhost:3999', origin: 'http://localhost:3999' })).userId;
}

describe('e-mail sign-up and sign-in (spec account rules 1, 3, 4)', () => {
  it('rule 1: sign-up e-mails a 6-digit code; entering it creates the account with its two wallets', async () => {
    const email = uniqueEmail();
    await startEmailSignUp({ email });
    expect(latestCode(email)).toMatch(/^\d{6}$/);
    expect(await findUserByEmail(email)).toBeUndefined();
    const { userId, created } = await completeEmailSignUp({ email, code: latestCode(email) });
    expect(created).toBe(true);
    const user = await findUserByEmail(email);
    expect(user).toMatchObject({ id: userId, signUpMethod: 'email' });
    expect(user!.emailVerifiedAt).not.toBeNull();
    const owned = await getDb().select().from(wallets).where(eq(wallets.userId, userId));
    expect(owned.map((w) => w.family).sort()).toEqual(['evm', 'solana']);
  });

  it('rule 3: after registration a sign-in needs a new code; the sign-up code does not sign in', async () => {
    const email = uniqueEmail();
    await startEmailSignUp({ email });
    const signUpCode = latestCode(email);
    await completeEmailSignUp({ email, code: signUpCode });
    await expect(completeEmailSignIn({ email, code: signUpCode })).rejects.toMatchObject({ code: 'code_expired' });
    await startEmailSignIn({ email });
    const signInCode = latestCode(email);
    const { userId } = await completeEmailSignIn({ email, code: signInCode });
    expect(userId).toBe((await findUserByEmail(email))!.id);
    // Single use.
    await expect(completeEmailSignIn({ email, code: signInCode })).rejects.toMatchObject({ code: 'code_expired' });
  });

  it('a wrong code is refused and says how many tries are left', async () => {
    const email = uniqueEmail();
    await startEmailSignUp({ email });
    const right = latestCode(email);
    const wrong = right === '000000' ? '000001' : '000000';
    await expect(completeEmailSignUp({ email, code: wrong })).rejects.toMatchObject({
      code: 'code_incorrect',
      message: expect.stringMatching(/4 tries left/),
    });
    expect(await findUserByEmail(email)).toBeUndefined();
  });

  it('signing up again with a registered e-mail answers as for a new one; the mailbox is told to sign in', async () => {
    const email = uniqueEmail();
    await signUp(email);
    await allowNextCode(email);
    const answer = await startEmailSignUp({ email });
    expect(answer.expiresAt).toBeInstanceOf(Date);
    const [mail] = readOutbox('email', email);
    expect(mail!.subject).toBe('You already have a Chargeport account');
    expect(mail!.text).toMatch(/Sign in instead/);
    expect(mail!.text).not.toMatch(/\b\d{6}\b/);
  });

  it('answers are neutral: an unknown address gets the same answer as a real account, and its mailbox is told to sign up', async () => {
    const unknown = uniqueEmail();
    const known = uniqueEmail();
    await signUp(known);
    await allowNextCode(known);
    const forUnknown = await startEmailSignIn({ email: unknown });
    const forKnown = await startEmailSignIn({ email: known });
    expect(Object.keys(forUnknown)).toEqual(Object.keys(forKnown));
    expect(readOutbox('email', unknown)[0]!.text).toMatch(/no account uses it\. Sign up instead/);
    // Guessing codes for an unknown address answers exactly as for a known one: "wrong, N tries left".
    const wrongUnknown = await appError(completeEmailSignIn({ email: unknown, code: '000000' }));
    const wrongKnown = await appError(completeEmailSignIn({ email: known, code: latestCode(known) === '000000' ? '111111' : '000000' }));
    expect([wrongUnknown.code, wrongUnknown.message]).toEqual([wrongKnown.code, wrongKnown.message]);
    // And the resend throttle is the same too.
    expect((await appError(startEmailSignIn({ email: unknown }))).code).toBe((await appError(startEmailSignIn({ email: known }))).code);
  });

  it('rule 4: the e-mail sign-in of a Google account is not refused on the page; the mailbox says what to do; sign-up then adds e-mail sign-in', async () => {
    const email = uniqueEmail('google');
    const { userId } = await signInWithOidc({ provider: 'google', subject: `g-${email}`, email, emailVerified: true });
    await startEmailSignIn({ email });
    expect(readOutbox('email', email)[0]!.text).toMatch(/created with Google.*add e-mail sign-in.*sign-up/s);
    // The code issued meanwhile was never sent and signs no one in.
    await expect(completeEmailSignIn({ email, code: '123456' })).rejects.toMatchObject({ code: 'code_incorrect' });
    await allowNextCode(email);
    // Adding e-mail sign-in through the sign-up flow: the code proves the address, the account stays the same.
    await startEmailSignUp({ email });
    const result = await completeEmailSignUp({ email, code: latestCode(email) });
    expect(result).toEqual({ userId, created: false });
    await allowNextCode(email);
    await startEmailSignIn({ email });
    expect((await completeEmailSignIn({ email, code: latestCode(email) })).userId).toBe(userId);
    const identities = await getDb().select().from(authIdentities).where(eq(authIdentities.userId, userId));
    expect(identities.map((i) => i.provider).sort()).toEqual(['email', 'google']);
  });
});

/**
 * Rule 4 as docs/adr/0029-the-code-is-the-password.md reads it: the sign-in form's inputs are the e-mail and
 * the 6-digit code (the code is the password). An account created with a social method has no e-mail
 * sign-in until a code has proved the address through sign-up; until then the form answers as for any
 * address, sends no code, and opens nothing even with the right one.
 */
describe('rule 4: the e-mail form does not open an account created with a social method', () => {
  it.each([
    ['google', 'Google'],
    ['apple', 'Apple'],
  ] as const)(
    '%s: the same answers as an e-mail account, no code in the mailbox but what to do, and even the right code opens nothing',
    async (provider, name) => {
      const email = uniqueEmail(provider);
      const { userId } = await signInWithOidc({ provider, subject: `${provider}-${email}`, email, emailVerified: true });
      const emailAccount = uniqueEmail();
      await signUp(emailAccount);
      await allowNextCode(emailAccount);

      // The page's answer is the one an e-mail account gets (no enumeration of how an address signs in).
      expect(Object.keys(await startEmailSignIn({ email }))).toEqual(Object.keys(await startEmailSignIn({ email: emailAccount })));
      const [mail] = readOutbox('email', email);
      expect(mail!.subject).toBe('Sign in to Chargeport');
      expect(mail!.text).toContain(`Your Chargeport account was created with ${name}: continue with ${name}`);
      expect(mail!.text).toMatch(/add e-mail sign-in to it through sign-up first/);
      expect(mail!.text).not.toMatch(/\b\d{6}\b/);

      // A guess is refused exactly as for an e-mail account…
      await plantCode('signin', email, '123456');
      const guess = await appError(completeEmailSignIn({ email, code: '654321' }));
      const guessOnEmailAccount = await appError(
        completeEmailSignIn({ email: emailAccount, code: latestCode(emailAccount) === '654321' ? '654320' : '654321' }),
      );
      expect([guess.code, guess.message]).toEqual([guessOnEmailAccount.code, guessOnEmailAccount.message]);
      // …and the right code signs no one in.
      await expect(completeEmailSignIn({ email, code: '123456' })).rejects.toMatchObject({
        code: 'code_incorrect',
        message: 'That code is not right. Ask for a new code.',
        param: 'code',
      });
      const identities = await getDb().select().from(authIdentities).where(eq(authIdentities.userId, userId));
      expect(identities.map((identity) => identity.provider)).toEqual([provider]);
    },
  );

  it('Sign in with Ethereum: before its e-mail step no address reaches the account; that step (a code, rule 2) is the e-mail sign-up and adds e-mail sign-in', async () => {
    const userId = await ethereumAccount();
    const email = uniqueEmail('siwe');
    await startEmailVerification({ userId, email });
    const verificationCode = latestCode(email);

    // Offered but not yet proved: the address is nobody's, the form opens nothing even with the right code.
    await startEmailSignIn({ email });
    expect(readOutbox('email', email)[0]!.text).toMatch(/no account uses it\. Sign up instead/);
    await plantCode('signin', email, '123456');
    await expect(completeEmailSignIn({ email, code: '123456' })).rejects.toMatchObject({
      code: 'code_incorrect',
      message: 'That code is not right. Ask for a new code.',
    });

    // The code proves the mailbox, as sign-up's does: from then on the e-mail form opens this account.
    await completeEmailVerification({ userId, email, code: verificationCode });
    await allowNextCode(email);
    await startEmailSignIn({ email });
    expect((await completeEmailSignIn({ email, code: latestCode(email) })).userId).toBe(userId);
    const identities = await getDb().select().from(authIdentities).where(eq(authIdentities.userId, userId));
    expect(identities.map((identity) => identity.provider).sort()).toEqual(['email', 'ethereum']);
  });
});

describe('Google / Apple sign-in (rule 2: no e-mail code)', () => {
  it('creates a verified account with wallets at once, and finds it again by subject', async () => {
    const email = uniqueEmail('apple');
    const first = await signInWithOidc({ provider: 'apple', subject: 'apple-sub-1-' + email, email, emailVerified: true });
    expect(first.created).toBe(true);
    const [user] = await getDb().select().from(users).where(eq(users.id, first.userId));
    expect(user!.signUpMethod).toBe('apple');
    expect(user!.emailVerifiedAt).not.toBeNull();
    expect(await getDb().select().from(wallets).where(eq(wallets.userId, first.userId))).toHaveLength(2);
    const again = await signInWithOidc({
      provider: 'apple',
      subject: 'apple-sub-1-' + email,
      email: 'changed@example.test',
      emailVerified: true,
    });
    expect(again).toEqual({ userId: first.userId, created: false });
  });

  it('links a provider with a verified e-mail to the existing account of that e-mail', async () => {
    const email = uniqueEmail();
    const userId = await signUp(email);
    const linked = await signInWithOidc({ provider: 'google', subject: 'g-link-' + email, email, emailVerified: true });
    expect(linked).toEqual({ userId, created: false });
  });

  it('refuses a provider account without a verified e-mail', async () => {
    await expect(
      signInWithOidc({ provider: 'google', subject: 'g-unverified', email: uniqueEmail(), emailVerified: false }),
    ).rejects.toMatchObject({
      code: 'email_not_verified',
    });
  });
});
