import { eq, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { users } from '@/lib/db/schema';

/** Sign out everywhere: every session token issued so far stops working (lib/auth/session-token.ts). */
export async function revokeAllSessions(userId: string, db: DbOrTx = getDb()): Promise<void> {
  await db
    .update(users)
    .set({ sessionVersion: sql`${users.sessionVersion} + 1` })
    .where(eq(users.id, userId));
}
