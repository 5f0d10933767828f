/**
 * Google / Apple sign-in (OIDC). No e-mail code is asked (spec rule 2: social sign-up is exempt).
 * A known subject signs in; a new one with a verified e-mail of an existing account is linked to it
 * (the provider vouches for the address); otherwise a new account with its wallets is created.
 */
import { getDb } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { addIdentity } from './add-identity';
import { createUser } from './create-user';
import { findUserByEmail, findUserByIdentity } from './find-user';

export async function signInWithOidc(input: {
  provider: 'google' | 'apple';
  subject: string;
  email: string | null | undefined;
  emailVerified: boolean;
}): Promise<{ userId: string; created: boolean }> {
  const known = await findUserByIdentity(input.provider, input.subject);
  if (known) return { userId: known.id, created: false };
  const email = input.email?.trim().toLowerCase() || null;
  if (!email || !input.emailVerified) {
    throw new AppError('email_not_verified', `Your ${input.provider} account has no verified e-mail address.`);
  }
  return getDb().transaction(async (tx) => {
    const sameEmail = await findUserByEmail(email, tx);
    if (sameEmail) {
      await addIdentity(tx, { userId: sameEmail.id, provider: input.provider, subject: input.subject });
      return { userId: sameEmail.id, created: false };
    }
    const user = await createUser(tx, { email, emailVerified: true, method: input.provider, subject: input.subject });
    return { userId: user.id, created: true };
  });
}
