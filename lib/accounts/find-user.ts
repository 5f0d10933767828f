import { and, eq } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { authIdentities, users, type SignInMethod, type User } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { createWalletsForUser } from '@/lib/wallets/create-wallets';

export async function findUserByEmail(email: string, tx?: DbOrTx): Promise<User | undefined> {
  const [user] = await (tx ?? getDb()).select().from(users).where(eq(users.email, email));
  return user;
}

export async function findUserById(id: string, tx?: DbOrTx): Promise<User | undefined> {
  const [user] = await (tx ?? getDb()).select().from(users).where(eq(users.id, id));
  return user;
}

export async function findUserByIdentity(provider: SignInMethod, subject: string, tx?: DbOrTx): Promise<User | undefined> {
  const [row] = await (tx ?? getDb())
    .select({ user: users })
    .from(authIdentities)
    .innerJoin(users, eq(authIdentities.userId, users.id))
    .where(and(eq(authIdentities.provider, provider), eq(authIdentities.subject, subject)));
  return row?.user;
}

export async function listIdentities(userId: string, tx?: DbOrTx): Promise<{ provider: SignInMethod; subject: string }[]> {
  return (tx ?? getDb())
    .select({ provider: authIdentities.provider, subject: authIdentities.subject })
    .from(authIdentities)
    .where(eq(authIdentities.userId, userId));
}

export async function addIdentity(tx: DbOrTx, input: { userId: string; provider: SignInMethod; subject: string }): Promise<void> {
  await tx
    .insert(authIdentities)
    .values({ id: newId('authIdentity'), ...input })
    .onConflictDoNothing();
}

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
