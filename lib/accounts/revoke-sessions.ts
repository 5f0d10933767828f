import { eq, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { users } from '@/lib/db/schema';

/**
 * Spread into a `users` update to end every session of the account with the same write (PIN change or
 * reset, phone change, e-mail change): every session token issued so far stops working
 * (lib/auth/session-token.ts). The action then renews the session that made the change.
 *
 * The bump also revokes every app's access to the account (OAuth grants, access and refresh tokens,
 * provider sessions) in the same statement: a trigger on users.session_version (migration
 * 0042, N14), so no caller can end the sessions and forget the apps.
 */
export const endAllSessions = { sessionVersion: sql`${users.sessionVersion} + 1` };

/** Sign out everywhere: every session token issued so far stops working, and every app's grant and tokens with them. */
export async function revokeAllSessions(userId: string, db: DbOrTx = getDb()): Promise<void> {
  await db.update(users).set(endAllSessions).where(eq(users.id, userId));
}
