/**
 * Following an invitation link: the lookup behind the accept page (findInvitation, used by
 * describe-invitation.ts) and accepting it. A link works once, before it expires, unless revoked;
 * it is found by the SHA-256 of its token (hash-invitation-token.ts).
 *
 *  - only an account signed in with the invited address accepts;
 *  - an account belongs to one merchant (the dashboard shows one; a unique index holds it), so
 *    accepting from an account that already is a member elsewhere is refused with the reason;
 *  - someone joining as owner gets `owner_since`, which holds their withdrawals (withdrawal-hold.ts);
 *  - the seat, the used link and the audit entry commit together; every owner is e-mailed when an
 *    owner or admin joins (after the commit).
 */
import { eq } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { merchantInvitations, merchantMembers, users, type MemberRole } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { hashInvitationToken } from './hash-invitation-token';
import { notifyOwners } from './notify-owners';
import { authorizeMember, isPrivilegedRole } from './permissions';

/** The invitation behind a link, for the accept page (without accepting). */
export async function findInvitation(token: string, now = new Date()) {
  const [row] = await getDb()
    .select()
    .from(merchantInvitations)
    .where(eq(merchantInvitations.tokenHash, hashInvitationToken(token)));
  if (!row || row.acceptedAt || row.revokedAt || row.expiresAt <= now) return undefined;
  return row;
}

export async function acceptInvitation(
  input: { userId: string; token: string; ip?: string | null },
  now = new Date(),
): Promise<{ merchantId: string; role: MemberRole }> {
  const accepted = await getDb().transaction(async (tx) => {
    const [invitation] = await tx
      .select()
      .from(merchantInvitations)
      .where(eq(merchantInvitations.tokenHash, hashInvitationToken(input.token)))
      .for('update');
    if (!invitation || invitation.acceptedAt || invitation.revokedAt || invitation.expiresAt <= now) {
      throw new AppError('not_found', 'This invitation link is no longer valid. Ask for a new one.');
    }
    const [user] = await tx.select().from(users).where(eq(users.id, input.userId));
    if (!user?.email || user.email.toLowerCase() !== invitation.email) {
      throw new AppError('forbidden', `This invitation is for ${invitation.email}. Sign in with that address to accept it.`);
    }
    const [membership] = await tx.select().from(merchantMembers).where(eq(merchantMembers.userId, input.userId));
    if (membership) {
      throw new AppError(
        'account_exists',
        membership.merchantId === invitation.merchantId ? 'You are already a member.' : 'This account already belongs to another merchant.',
      );
    }
    await tx.insert(merchantMembers).values({
      merchantId: invitation.merchantId,
      userId: input.userId,
      role: invitation.role,
      ownerSince: invitation.role === 'owner' ? now : null,
    });
    await tx.update(merchantInvitations).set({ acceptedAt: now }).where(eq(merchantInvitations.id, invitation.id));
    const actor = await authorizeMember(tx, { userId: input.userId, merchantId: invitation.merchantId, permission: 'dashboard.view' });
    await recordAudit(tx, { actor, action: 'member.join', targetId: invitation.id, data: { role: invitation.role }, ip: input.ip });
    return { merchantId: invitation.merchantId, role: invitation.role, email: invitation.email };
  });
  if (isPrivilegedRole(accepted.role)) {
    await notifyOwners({
      merchantId: accepted.merchantId,
      actorUserId: input.userId,
      ip: input.ip,
      subject: `${accepted.email} joined as ${accepted.role}`,
      text: `${accepted.email} accepted the invitation and is now ${accepted.role}.`,
    });
  }
  return { merchantId: accepted.merchantId, role: accepted.role };
}
