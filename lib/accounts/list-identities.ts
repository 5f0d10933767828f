import { eq } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { authIdentities, type SignInMethod } from '@/lib/db/schema';

/** The sign-in methods linked to an account (e-mail, Google, Ethereum, …). */
export async function listIdentities(userId: string, tx?: DbOrTx): Promise<{ provider: SignInMethod; subject: string }[]> {
  return (tx ?? getDb())
    .select({ provider: authIdentities.provider, subject: authIdentities.subject })
    .from(authIdentities)
    .where(eq(authIdentities.userId, userId));
}
