/**
 * Inviting someone to the merchant by e-mail from the Members tab (`members.manage`). The Members tab's
 * other verbs live beside it: list-members, accept-invitation, change-member-role, remove-member,
 * revoke-invitation. Every rule is enforced on the server, in one transaction with its audit entry:
 *
 *  - only owners and admins invite; only an owner invites an owner (permissions.ts);
 *  - an invitation is for one address, once, for 7 days; its link carries a random token of which only
 *    the SHA-256 is stored (hash-invitation-token.ts); inviting the same address again replaces the
 *    open invitation; a current member is not invited again;
 *  - inviting an owner or admin needs the actor's PIN or a passkey (step-up, live: roles hold in both
 *    modes): a stolen session alone cannot seat a new owner, who would then withdraw;
 *  - every owner is e-mailed when an owner or admin is invited (after the commit), then the invitee.
 */
import { randomBytes } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { emailSchema } from '@/lib/accounts/email';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { merchantInvitations, merchantMembers, users } from '@/lib/db/schema';
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
