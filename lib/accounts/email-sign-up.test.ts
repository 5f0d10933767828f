import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { authIdentities, users, verificationCodes, wallets } from '@/lib/db/schema';
import { readOutbox } from '@/lib/notifications/outbox';
import { appError, latestCode, uniqueEmail } from '@/test/accounts';
import { completeEmailSignIn, completeEmailSignUp, startEmailSignIn, startEmailSignUp } from './email-sign-up';
import { signInWithOidc } from './oidc-sign-in';
import { findUserByEmail } from './find-user';

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
