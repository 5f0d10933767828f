/**
 * Changing a member's role from the Members tab (`members.manage`), in one transaction with its audit entry:
 *
 *  - only an owner makes, unmakes or changes an owner (permissions.ts), and the last owner is never
 *    demoted: the member rows are locked and the owners counted first (locked-member.ts,
 *    require-another-owner.ts), so two owners demoting each other at once leave one;
 *  - promoting into an owner or admin seat needs the actor's PIN or a passkey (step-up, live: roles
 *    hold in both modes): a stolen session alone cannot seat a new owner, who would then withdraw;
 *  - someone made an owner gets `owner_since`, which holds their withdrawals (withdrawal-hold.ts);
 *  - every owner is e-mailed when an owner or admin seat changes (after the commit).
 */
import { and, eq } from 'drizzle-orm';
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { merchantMembers, type MemberRole } from '@/lib/db/schema';
import { emailOf } from './email-of';
import { lockedMember } from './locked-member';
import { notifyOwners } from './notify-owners';
import { authorizeMember, isPrivilegedRole, parseMemberRole, requireOwnerFor, type MemberActor } from './permissions';
import { requireAnotherOwner } from './require-another-owner';

/** owner > admin > the rest: a change to a higher seat is a promotion. */
const rank = (role: MemberRole) => (role === 'owner' ? 2 : role === 'admin' ? 1 : 0);

export async function changeMemberRole(input: MemberActor & { memberUserId: string; role: string; stepUp?: StepUpProof }): Promise<void> {
  const role = parseMemberRole(input.role);
  const from = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'members.manage' });
    const target = await lockedMember(tx, input.merchantId, input.memberUserId);
    requireOwnerFor(actor, role, 'make');
    requireOwnerFor(actor, target.role, 'change');
    if (target.role === 'owner' && role !== 'owner') await requireAnotherOwner(tx, input.merchantId);
    if (isPrivilegedRole(role) && rank(role) > rank(target.role)) {
      await verifyStepUp({
        userId: input.userId,
        proof: input.stepUp ?? {},
        mode: 'live',
        tx,
        attempt: { action: 'member_promote', merchantId: input.merchantId, mode: 'live', ip: input.ip },
      });
    }
    await tx
      .update(merchantMembers)
      .set({ role, ownerSince: role !== 'owner' ? null : target.role === 'owner' ? target.ownerSince : new Date() })
      .where(and(eq(merchantMembers.merchantId, input.merchantId), eq(merchantMembers.userId, input.memberUserId)));
    await recordAudit(tx, {
      actor,
      action: 'member.change_role',
      targetId: input.memberUserId,
      data: { from: target.role, to: role },
      ip: input.ip,
    });
    return target.role;
  });
  if (from !== role && (isPrivilegedRole(from) || isPrivilegedRole(role))) {
    await notifyOwners({
      merchantId: input.merchantId,
      actorUserId: input.userId,
      ip: input.ip,
      subject: `${await emailOf(input.memberUserId)} is now ${role}`,
      text: `The role of ${await emailOf(input.memberUserId)} changed from ${from} to ${role}.`,
    });
  }
}
