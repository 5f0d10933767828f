/**
 * Passkeys (issue 14) through the server's verification path, with a software authenticator
 * (test/software-authenticator.ts): enrolment, the second step of sign-in and the step-up stand-in
 * for the PIN pass with a real signature, and are refused when the signature, the challenge, the
 * ceremony or the counter is wrong.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { appError, newUser } from '@/test/accounts';
import { softwareAuthenticator, type SoftwareAuthenticator } from '@/test/software-authenticator';
import { verifyStepUp } from '../step-up';
import { listPasskeys, passkeyAssertionOptions, passkeyRegistrationOptions, registerPasskey } from './passkeys';
import { hasSecondFactor, verifySecondFactor } from './second-factor';

const ORIGIN = process.env.APP_URL!;
let userId: string;
let device: SoftwareAuthenticator;

async function enrol(): Promise<void> {
  const options = await passkeyRegistrationOptions({ userId, userName: 'player@example.test' });
  await registerPasskey({ userId, name: 'Laptop', response: JSON.stringify(device.register(options)) });
}

beforeEach(async () => {
  userId = await newUser({ pin: '739104' });
  device = softwareAuthenticator(ORIGIN);
});

describe('passkey enrolment', () => {
  it('a passkey registered for the server challenge becomes a second factor', async () => {
    expect(await hasSecondFactor(userId)).toBe(false);
    await enrol();
    const [key] = await listPasskeys(userId);
    expect(key).toMatchObject({ credentialId: device.credentialId, name: 'Laptop' });
    expect(await hasSecondFactor(userId)).toBe(true);
  });

  it('is refused for another origin or a challenge the server did not issue (nothing stored)', async () => {
    const options = await passkeyRegistrationOptions({ userId, userName: 'player@example.test' });
    const phishing = softwareAuthenticator('https://chargeport.example.evil');
    expect((await appError(registerPasskey({ userId, name: 'x', response: phishing.register(options) }))).code).toBe('invalid_request');
    const invented = await appError(
      registerPasskey({ userId, name: 'x', response: device.register({ ...options, challenge: 'aW52ZW50ZWQ' }) }),
    );
    expect(invented.code).toBe('invalid_request');
    expect(await listPasskeys(userId)).toHaveLength(0);
  });
});

describe('passkey assertions', () => {
  beforeEach(enrol);

  it('a signed assertion passes the second step of sign-in once; its challenge cannot be replayed', async () => {
    const assertion = device.assert(await passkeyAssertionOptions({ userId, ceremony: 'sign_in' }));
    await verifySecondFactor(userId, { method: 'passkey', response: assertion });
    expect((await appError(verifySecondFactor(userId, { method: 'passkey', response: assertion }))).code).toBe('code_incorrect');
  });

  it('a tampered signature is refused', async () => {
    const assertion = device.assert(await passkeyAssertionOptions({ userId, ceremony: 'sign_in' }));
    const signature = Buffer.from(assertion.response.signature, 'base64url');
    signature[signature.length - 1]! ^= 0x01;
    assertion.response.signature = signature.toString('base64url');
    expect((await appError(verifySecondFactor(userId, { method: 'passkey', response: assertion }))).code).toBe('code_incorrect');
  });

  it('a sign-in challenge does not confirm a step-up, and a counter that does not grow is refused', async () => {
    const forSignIn = device.assert(await passkeyAssertionOptions({ userId, ceremony: 'sign_in' }));
    expect(
      (
        await appError(
          verifyStepUp({
            userId,
            proof: { passkeyResponse: JSON.stringify(forSignIn) },
            mode: 'test',
            attempt: { action: 'private_key_export' },
          }),
        )
      ).code,
    ).toBe('step_up_failed');

    const good = device.assert(await passkeyAssertionOptions({ userId, ceremony: 'step_up' }), { counter: 5 });
    await verifyStepUp({
      userId,
      proof: { passkeyResponse: JSON.stringify(good) },
      mode: 'test',
      attempt: { action: 'private_key_export' },
    });
    // A clone of the authenticator answers with an old counter.
    const cloned = device.assert(await passkeyAssertionOptions({ userId, ceremony: 'step_up' }), { counter: 5 });
    expect(
      (
        await appError(
          verifyStepUp({
            userId,
            proof: { passkeyResponse: JSON.stringify(cloned) },
            mode: 'test',
            attempt: { action: 'private_key_export' },
          }),
        )
      ).code,
    ).toBe('step_up_failed');
  });

  it("another account's passkey proves nothing for this one", async () => {
    const other = userId;
    userId = await newUser();
    const assertion = device.assert(await passkeyAssertionOptions({ userId: other, ceremony: 'sign_in' }));
    expect((await appError(verifySecondFactor(userId, { method: 'passkey', response: assertion }))).code).toBe('code_incorrect');
  });
});
