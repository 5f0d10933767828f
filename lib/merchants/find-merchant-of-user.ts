/**
 * The merchant an account belongs to, with its role there. An account holds at most one seat (a unique
 * index on merchant_members.user_id), so this is the dashboard's merchant for that user.
 */
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchantMembers, merchants, type MemberRole, type Merchant } from '@/lib/db/schema';

export async function findMerchantOfUser(userId: string): Promise<{ merchant: Merchant; role: MemberRole } | undefined> {
  const [row] = await getDb()
    .select({ merchant: merchants, role: merchantMembers.role })
    .from(merchantMembers)
    .innerJoin(merchants, eq(merchantMembers.merchantId, merchants.id))
    .where(eq(merchantMembers.userId, userId))
    .limit(1);
  return row;
}
