/** A member's address for the text of an owner notification (notify-owners.ts); the user id when the account has none. */
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';

export async function emailOf(userId: string): Promise<string> {
  const [row] = await getDb().select({ email: users.email }).from(users).where(eq(users.id, userId));
  return row?.email ?? userId;
}
