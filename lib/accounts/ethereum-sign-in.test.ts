import { eq } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { users, wallets } from '@/lib/db/schema';
import { latestCode, uniqueEmail } from '@/test/accounts';
import { issueSiweNonce, signInWithEthereum, SIWE_NONCE_TTL_MS } from './ethereum-sign-in';
import { completeEmailVerification, startEmailVerification } from './verify-email';

const DOMAIN = 'localhost:3999';
const ORIGIN = 'http://localhost:3999';

async function signedMessage(options: { domain?: string; chainId?: number; nonce?: string; issuedAt?: Date } = {}) {
  const account = privateKeyToAccount(generatePrivateKey());
  const message = createSiweMessage({
    address: account.address,
    chainId: options.chainId ?? 137,
    domain: options.domain ?? DOMAIN,
    uri: ORIGIN,
    nonce: options.nonce ?? (await issueSiweNonce()),
    version: '1',
    issuedAt: options.issuedAt ?? new Date(),
  });
  return { account, message, signature: await account.signMessage({ message }) };
}

describe('Sign in with Ethereum', () => {
  it('creates an account for a new address, with wallets, but without a verified e-mail', async () => {
    const { message, signature, account } = await signedMessage();
    const { userId, created } = await signInWithEthereum({ message, signature, domain: DOMAIN, origin: ORIGIN });
    expect(created).toBe(true);
    const [user] = await getDb().select().from(users).where(eq(users.id, userId));
    expect(user).toMatchObject({ signUpMethod: 'ethereum', email: null, emailVerifiedAt: null });
    expect(await getDb().select().from(wallets).where(eq(wallets.userId, userId))).toHaveLength(2);
    // Signing in again with the same address finds the same account.
    const nonce = await issueSiweNonce();
    const again = createSiweMessage({
      address: account.address,
      chainId: 137,
      domain: DOMAIN,
      uri: ORIGIN,
      nonce,
      version: '1',
      issuedAt: new Date(),
    });
    const second = await signInWithEthereum({
      message: again,
      signature: await account.signMessage({ message: again }),
      domain: DOMAIN,
      origin: ORIGIN,
    });
    expect(second).toEqual({ userId, created: false });
  });

  it('rule 2: the account must verify an e-mail by code before it is usable', async () => {
    const { message, signature } = await signedMessage();
    const { userId } = await signInWithEthereum({ message, signature, domain: DOMAIN, origin: ORIGIN });
    const email = uniqueEmail('siwe');
    await startEmailVerification({ userId, email });
    await completeEmailVerification({ userId, email, code: latestCode(email) });
    const [user] = await getDb().select().from(users).where(eq(users.id, userId));
    expect(user!.email).toBe(email);
    expect(user!.emailVerifiedAt).not.toBeNull();
  });

  it('refuses a replayed message (the nonce is single-use)', async () => {
    const { message, signature } = await signedMessage();
    await signInWithEthereum({ message, signature, domain: DOMAIN, origin: ORIGIN });
    await expect(signInWithEthereum({ message, signature, domain: DOMAIN, origin: ORIGIN })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/already used or has expired/),
    });
  });

  it('refuses a nonce the server never issued, and an expired one', async () => {
    const forged = await signedMessage({ nonce: 'madeUpNonce12345' });
    await expect(signInWithEthereum({ ...forged, domain: DOMAIN, origin: ORIGIN })).rejects.toMatchObject({ code: 'invalid_request' });
    const old = await signedMessage();
    await expect(
      signInWithEthereum({ ...old, domain: DOMAIN, origin: ORIGIN, now: new Date(Date.now() + SIWE_NONCE_TTL_MS + 1000) }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('refuses a message for another domain, an unknown chain, or a bad signature', async () => {
    const otherDomain = await signedMessage({ domain: 'evil.example' });
    await expect(signInWithEthereum({ ...otherDomain, domain: DOMAIN, origin: ORIGIN })).rejects.toMatchObject({
      message: /evil\.example/,
    });
    const otherChain = await signedMessage({ chainId: 424242 });
    await expect(signInWithEthereum({ ...otherChain, domain: DOMAIN, origin: ORIGIN })).rejects.toMatchObject({ message: /Chain 424242/ });
    const { message } = await signedMessage();
    const stranger = privateKeyToAccount(generatePrivateKey());
    await expect(
      signInWithEthereum({ message, signature: await stranger.signMessage({ message }), domain: DOMAIN, origin: ORIGIN }),
    ).rejects.toMatchObject({ code: 'invalid_request', param: 'signature' });
  });
});
