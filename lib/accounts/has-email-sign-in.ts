import { listIdentities } from './list-identities';

/**
 * Whether the account signs in by e-mail (it has an e-mail identity). Both e-mail flows turn on it
 * (spec account rule 4): sign-up sends such an address a note instead of a code, sign-in sends the
 * others a note instead of a usable code.
 */
export async function hasEmailSignIn(userId: string): Promise<boolean> {
  return (await listIdentities(userId)).some((identity) => identity.provider === 'email');
}
