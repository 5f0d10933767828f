/**
 * The Members tab's table: the merchant's members with their roles, and its open invitations (not
 * accepted, not revoked, not expired). Every member may read it (`dashboard.view`); the page offers
 * the actions their role allows (permissions.ts), each checked again by its verb.
 */
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchantInvitations, merchantMembers, users, type MemberRole } from '@/lib/db/schema';
import { authorizeMember, type MemberActor } from './permissions';

export interface MemberListing {
  userId: string;
  email: string | null;
  role: MemberRole;
  joinedAt: Date;
}

export interface InvitationListing {
  id: string;
  email: string;
  role: MemberRole;
  expiresAt: Date;
}

export async function listMembers(
  input: MemberActor,
  now = new Date(),
): Promise<{ members: MemberListing[]; invitations: InvitationListing[] }> {
  await authorizeMember(getDb(), { ...input, permission: 'dashboard.view' });
  const members = await getDb()
    .select({ userId: merchantMembers.userId, email: users.email, role: merchantMembers.role, joinedAt: merchantMembers.createdAt })
    .from(merchantMembers)
    .innerJoin(users, eq(users.id, merchantMembers.userId))
    .where(eq(merchantMembers.merchantId, input.merchantId))
    .orderBy(asc(merchantMembers.createdAt));
  const invitations = await getDb()
    .select({
      id: merchantInvitations.id,
      email: merchantInvitations.email,
      role: merchantInvitations.role,
      expiresAt: merchantInvitations.expiresAt,
    })
    .from(merchantInvitations)
    .where(
      and(
        eq(merchantInvitations.merchantId, input.merchantId),
        isNull(merchantInvitations.acceptedAt),
        isNull(merchantInvitations.revokedAt),
        gt(merchantInvitations.expiresAt, now),
      ),
    )
    .orderBy(asc(merchantInvitations.createdAt));
  return { members, invitations };
}
