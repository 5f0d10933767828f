import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { authIdentities, users, verificationCodes, wallets } from '@/lib/db/schema';
import { latestCode, uniqueEmail } from '@/test/accounts';
import { completeEmailSignIn, completeEmailSignUp, startEmailSignIn, startEmailSignUp } from './email-sign-up';
import { signInWithOidc } from './oidc-sign-in';
import { findUserByEmail } from './users';

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

  it('signing up twice with the same e-mail is refused with a pointer to sign-in', async () => {
    const email = uniqueEmail();
    await signUp(email);
    await expect(startEmailSignUp({ email })).rejects.toMatchObject({ code: 'account_exists' });
  });

  it('signing in with an unknown e-mail says to sign up', async () => {
    await expect(startEmailSignIn({ email: uniqueEmail() })).rejects.toMatchObject({ code: 'not_found', message: /Sign up/ });
  });

  it('rule 4: the e-mail sign-in refuses a Google account and says what to do; sign-up then adds e-mail sign-in', async () => {
    const email = uniqueEmail('google');
    const { userId } = await signInWithOidc({ provider: 'google', subject: `g-${email}`, email, emailVerified: true });
    await expect(startEmailSignIn({ email })).rejects.toMatchObject({
      code: 'use_other_sign_in',
      message: expect.stringMatching(/created with Google.*add e-mail sign-in.*sign-up/),
    });
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
