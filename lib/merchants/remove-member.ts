/**
 * Removing a member from the Members tab (`members.manage`), in one transaction with its audit entry:
 *
 *  - only an owner removes an owner (permissions.ts), and never the last one: the member rows are
 *    locked and the owners counted first (locked-member.ts, require-another-owner.ts);
 *  - the removed member's sessions all end, in the same transaction: they carried this merchant's dashboard;
 *  - every owner is e-mailed when an owner or admin is removed (after the commit). The account stays.
 */
import { and, eq } from 'drizzle-orm';
import { revokeAllSessions } from '@/lib/accounts/revoke-sessions';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { merchantMembers } from '@/lib/db/schema';
import { emailOf } from './email-of';
import { lockedMember } from './locked-member';
import { notifyOwners } from './notify-owners';
import { authorizeMember, isPrivilegedRole, requireOwnerFor, type MemberActor } from './permissions';
import { requireAnotherOwner } from './require-another-owner';

export async function removeMember(input: MemberActor & { memberUserId: string }): Promise<void> {
  const removedRole = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'members.manage' });
    const target = await lockedMember(tx, input.merchantId, input.memberUserId);
    requireOwnerFor(actor, target.role, 'remove');
    if (target.role === 'owner') await requireAnotherOwner(tx, input.merchantId);
    await tx
      .delete(merchantMembers)
      .where(and(eq(merchantMembers.merchantId, input.merchantId), eq(merchantMembers.userId, input.memberUserId)));
    // Their sessions carried this merchant's dashboard: they all end.
    await revokeAllSessions(input.memberUserId, tx);
    await recordAudit(tx, { actor, action: 'member.remove', targetId: input.memberUserId, data: { role: target.role }, ip: input.ip });
    return target.role;
  });
  if (isPrivilegedRole(removedRole)) {
    const email = await emailOf(input.memberUserId);
    await notifyOwners({
      merchantId: input.merchantId,
      actorUserId: input.userId,
      ip: input.ip,
      subject: `${email} (${removedRole}) was removed`,
      text: `${email}, ${removedRole}, no longer belongs to this merchant.`,
    });
  }
}
