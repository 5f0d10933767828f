/** Looking an account up: by e-mail, by id, or by a linked sign-in method (provider + subject). */
import { and, eq } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { authIdentities, users, type SignInMethod, type User } from '@/lib/db/schema';

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
