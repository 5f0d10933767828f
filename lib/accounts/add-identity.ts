import type { DbOrTx } from '@/lib/db/client';
import { authIdentities, type SignInMethod } from '@/lib/db/schema';
import { newId } from '@/lib/ids';

/** Links a sign-in method to an account; linking the same one twice is a no-op. */
export async function addIdentity(tx: DbOrTx, input: { userId: string; provider: SignInMethod; subject: string }): Promise<void> {
  await tx
    .insert(authIdentities)
    .values({ id: newId('authIdentity'), ...input })
    .onConflictDoNothing();
}
