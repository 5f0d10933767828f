/**
 * The Members tab: invite by e-mail, accept, change roles, remove — every rule enforced here, on the
 * server, in one transaction with its audit entry:
 *
 *  - only owners and admins manage members (lib/merchants/permissions.ts); only an owner may make,
 *    unmake or remove an owner;
 *  - a merchant always keeps at least one owner: the member rows are locked and the owners counted
 *    before any change that could remove the last one;
 *  - an invitation is for one address, once, for 7 days; its link carries a random token of which only
 *    the SHA-256 is stored; inviting the same address again replaces the open invitation;
 *  - an account belongs to one merchant (the dashboard shows one; a unique index holds it), so
 *    accepting from an account that already is a member elsewhere is refused with the reason;
 *  - inviting or promoting an owner or admin needs the actor's PIN or a passkey (step-up): a stolen
 *    session alone cannot seat a new owner, who would then withdraw;
 *  - every owner is e-mailed when an owner or admin is invited, joins, changes role or is removed;
 *  - someone made an owner by another member gets `owner_since`, which holds their withdrawals
 *    (withdrawal-hold.ts); a removed member's sessions all end.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { emailSchema } from '@/lib/accounts/email';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { merchantInvitations, merchantMembers, users, type MemberRole } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { sendEmail } from '@/lib/notifications/send-email';
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { notifyOwners } from './notify-owners';
import { hashInvitationToken } from './hash-invitation-token';
import { authorizeMember, isPrivilegedRole, parseMemberRole, requireOwnerFor, type MemberActor } from './permissions';

export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

/** Invites `email` as `role`; e-mails the link. Returns the invitation id (the token only travels by e-mail). */
export async function inviteMember(
  input: MemberActor & { email: string; role: string; stepUp?: StepUpProof },
  now = new Date(),
): Promise<{ invitationId: string }> {
  const email = emailSchema.safeParse(input.email);
  if (!email.success) throw new AppError('invalid_request', 'Enter the e-mail address of the person to invite.', { param: 'email' });
  const role = parseMemberRole(input.role);
  const token = randomBytes(24).toString('base64url');
  const { invitationId, merchantName } = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'members.manage' });
    requireOwnerFor(actor, role, 'invite');
    // Owners and admins act in both modes: seating one is a live ownership change.
    if (isPrivilegedRole(role)) {
      await verifyStepUp({
        userId: input.userId,
        proof: input.stepUp ?? {},
        mode: 'live',
        tx,
        attempt: { action: 'member_invite', merchantId: input.merchantId, mode: 'live', ip: input.ip },
      });
    }
    const [existing] = await tx
      .select({ userId: users.id })
      .from(merchantMembers)
      .innerJoin(users, eq(users.id, merchantMembers.userId))
      .where(and(eq(merchantMembers.merchantId, input.merchantId), eq(users.email, email.data)));
    if (existing) throw new AppError('invalid_request', `${email.data} is already a member.`, { param: 'email' });
    await tx
      .update(merchantInvitations)
      .set({ revokedAt: now })
      .where(
        and(
          eq(merchantInvitations.merchantId, input.merchantId),
          eq(merchantInvitations.email, email.data),
          isNull(merchantInvitations.acceptedAt),
          isNull(merchantInvitations.revokedAt),
        ),
      );
    const id = newId('invitation');
    await tx.insert(merchantInvitations).values({
      id,
      merchantId: input.merchantId,
      email: email.data,
      role,
      tokenHash: hashInvitationToken(token),
      invitedByUserId: input.userId,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    });
    await recordAudit(tx, { actor, action: 'member.invite', targetId: id, data: { email: email.data, role }, ip: input.ip });
    return { invitationId: id, merchantName: actor.merchant.name };
  });
  if (isPrivilegedRole(role)) {
    await notifyOwners({
      merchantId: input.merchantId,
      actorUserId: input.userId,
      ip: input.ip,
      subject: `${email.data} invited as ${role}`,
      text: `${email.data} was invited to join ${merchantName} as ${role}.`,
    });
  }
  await sendEmail({
    to: email.data,
    subject: `Join ${merchantName} on Chargeport`,
    text: `You are invited to join ${merchantName} on Chargeport as ${role}.\n\nAccept within 7 days: ${env().APP_URL}/invitations/${token}\n\nSign in (or sign up) with this e-mail address to accept. If you did not expect this, ignore it.`,
  });
  return { invitationId };
}

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
