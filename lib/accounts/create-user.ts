import type { DbOrTx } from '@/lib/db/client';
import { users, type SignInMethod, type User } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { createWalletsForUser } from '@/lib/keyring/create-wallets';
import { addIdentity } from './add-identity';

/**
 * A new account with its first sign-in method and its wallets, in the caller's transaction
 * (spec: "Smart wallets are generated automatically for new accounts" — here plain wallets).
 */
export async function createUser(
  tx: DbOrTx,
  input: { email: string | null; emailVerified: boolean; method: SignInMethod; subject: string },
): Promise<User> {
  const [user] = await tx
    .insert(users)
    .values({
      id: newId('user'),
      email: input.email,
      emailVerifiedAt: input.emailVerified ? new Date() : null,
      signUpMethod: input.method,
    })
    .returning();
  await addIdentity(tx, { userId: user!.id, provider: input.method, subject: input.subject });
  await createWalletsForUser(tx, user!.id);
  return user!;
}
