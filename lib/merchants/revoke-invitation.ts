/**
 * Revoking an open invitation from the Members tab (`members.manage`): its link stops working at once.
 * The invitation is looked up within the actor's merchant, so another merchant's id is "not found";
 * only an owner revokes the invitation of an owner. The revocation commits with its audit entry.
 */
import { and, eq, isNull } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { merchantInvitations } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { authorizeMember, requireOwnerFor, type MemberActor } from './permissions';

export async function revokeInvitation(input: MemberActor & { invitationId: string }, now = new Date()): Promise<void> {
  await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'members.manage' });
    const revoked = await tx
      .update(merchantInvitations)
      .set({ revokedAt: now })
      .where(
        and(
          eq(merchantInvitations.id, input.invitationId),
          eq(merchantInvitations.merchantId, input.merchantId),
          isNull(merchantInvitations.acceptedAt),
          isNull(merchantInvitations.revokedAt),
        ),
      )
      .returning({ id: merchantInvitations.id, role: merchantInvitations.role });
    if (!revoked.length) throw new AppError('not_found', 'No open invitation with that id.');
    requireOwnerFor(actor, revoked[0]!.role, 'revoke the invitation of');
    await recordAudit(tx, { actor, action: 'member.revoke_invitation', targetId: input.invitationId, ip: input.ip });
  });
}
