/**
 * The sign-in actions answer one shape through lib/action-error.ts: forms get `FormState` with the
 * AppError's body, the wallet and passkey buttons `{ data }` or `{ error }`. Real PostgreSQL and
 * next-auth; only Next's request scope is stood in for (test/next-request-scope.ts).
 */
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it, vi } from 'vitest';
import { getSessionUser } from '@/lib/auth/session';
import { getSiweNonce, passkeySignInAction, passkeySignInOptionsAction, requestSignUpCode, signInWithSiwe } from './actions';

const scope = vi.hoisted(() => ({ headers: new Headers(), cookies: new Map<string, string>() }));
vi.mock('next/headers', async () => (await import('@/test/next-request-scope')).nextHeadersMock(scope));

function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  return data;
}

describe('sign-in actions: one result shape', () => {
  it('a form action answers FormState with the error body (code, message, param) and keeps the values', async () => {
    const state = await requestSignUpCode({}, form({ email: 'not-an-address' }));
    expect(state).toEqual({
      error: { code: 'invalid_request', message: expect.stringMatching(/^E-mail /), param: 'email' },
      values: { email: 'not-an-address' },
    });
  });

  it('passkey steps without a pending sign-in answer { error } with code unauthenticated', async () => {
    scope.cookies.clear();
    const expected = { error: { code: 'unauthenticated', message: 'Your sign-in has ended. Sign in again.' } };
    expect(await passkeySignInOptionsAction()).toEqual(expected);
    expect(await passkeySignInAction({ response: '{}' })).toEqual(expected);
  });

  it('Sign in with Ethereum: { data: { nonce } }, then { error } for a bad signature and { data: { redirectTo } } for a good one', async () => {
    scope.cookies.clear();
    const account = privateKeyToAccount(generatePrivateKey());
    const nonce = await getSiweNonce();
    if (nonce.error) throw new Error(nonce.error.message);
    const message = createSiweMessage({
      address: account.address,
      chainId: 1,
      domain: 'localhost:3999',
      uri: 'http://localhost:3999',
      nonce: nonce.data.nonce,
      version: '1',
      issuedAt: new Date(),
    });

    const forged = await signInWithSiwe({ message, signature: await privateKeyToAccount(generatePrivateKey()).signMessage({ message }) });
    expect(forged).toEqual({
      error: { code: 'invalid_request', message: 'The signature does not match the address.', param: 'signature' },
    });
    expect(scope.cookies.size).toBe(0);

    // A new account signed in by its wallet has no verified e-mail yet (spec rule 2).
    const signedIn = await signInWithSiwe({ message, signature: await account.signMessage({ message }) });
    expect(signedIn).toEqual({ data: { redirectTo: '/verify-email' } });
    expect(await getSessionUser()).toMatchObject({ emailVerifiedAt: null });
  });
});
