import { describe, expect, it } from 'vitest';
import { enrolTotp, newUser } from '@/test/accounts';
import { signInDestination } from './sign-in-destination';

describe('signInDestination', () => {
  it('a first login without a PIN sets one, then goes where the user was going (spec rule 5)', async () => {
    const userId = await newUser();
    expect(await signInDestination({ userId, emailVerified: true, returnTo: '/dashboard' })).toBe('/account/pin?next=%2Fdashboard');
  });

  it('an account with a PIN goes where it was going', async () => {
    const userId = await newUser({ pin: '482915' });
    expect(await signInDestination({ userId, emailVerified: true, returnTo: '/wallet/buy' })).toBe('/wallet/buy');
  });

  it('an account without a verified e-mail (Sign in with Ethereum) verifies one before anything else, PIN or not (spec rule 2)', async () => {
    const userId = await newUser();
    expect(await signInDestination({ userId, emailVerified: false, returnTo: '/wallet' })).toBe('/verify-email');
  });

  it('the second factor comes first, and then the rest of the way', async () => {
    const userId = await newUser({ pin: '482915' });
    await enrolTotp(userId);
    expect(await signInDestination({ userId, emailVerified: true, returnTo: '/wallet' })).toBe('/signin/two-factor?callbackUrl=%2Fwallet');
    expect(await signInDestination({ userId, emailVerified: false, returnTo: '/wallet' })).toBe(
      '/signin/two-factor?callbackUrl=%2Fverify-email',
    );
  });
});
