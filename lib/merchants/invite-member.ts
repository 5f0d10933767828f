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
import { createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNull } from 'drizzle-orm';
import { emailSchema } from '@/lib/accounts/email';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { MEMBER_ROLES, merchantInvitations, merchantMembers, users, type MemberRole } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { sendEmail } from '@/lib/notifications/send-email';
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { revokeAllSessions } from '@/lib/accounts/revoke-sessions';
import { notifyOwners } from './notify-owners';
import { authorizeMember, mayTouchSeat, type AuthorizedMember } from './permissions';

export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

interface Actor {
  userId: string;
  merchantId: string;
  ip?: string | null;
}

/** Roles whose seats are ownership: inviting or promoting into them needs a step-up, and owners hear of every change. */
const PRIVILEGED_ROLES: readonly MemberRole[] = ['owner', 'admin'];
const isPrivileged = (role: MemberRole) => PRIVILEGED_ROLES.includes(role);
/** owner > admin > the rest: a change to a higher seat is a promotion. */
const rank = (role: MemberRole) => (role === 'owner' ? 2 : role === 'admin' ? 1 : 0);

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

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

function parseRole(role: string): MemberRole {
  if (!(MEMBER_ROLES as readonly string[]).includes(role))
    throw new AppError('invalid_request', `The role is one of ${MEMBER_ROLES.join(', ')}.`, { param: 'role' });
  return role as MemberRole;
}

function requireOwnerFor(actor: AuthorizedMember, role: MemberRole, what: string): void {
  if (!mayTouchSeat(actor.role, role)) throw new AppError('forbidden', `Only an owner can ${what} an owner.`);
}

export async function listMembers(input: Actor, now = new Date()): Promise<{ members: MemberListing[]; invitations: InvitationListing[] }> {
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

/** Invites `email` as `role`; e-mails the link. Returns the invitation id (the token only travels by e-mail). */
export async function inviteMember(
  input: Actor & { email: string; role: string; stepUp?: StepUpProof },
  now = new Date(),
): Promise<{ invitationId: string }> {
  const email = emailSchema.safeParse(input.email);
  if (!email.success) throw new AppError('invalid_request', 'Enter the e-mail address of the person to invite.', { param: 'email' });
  const role = parseRole(input.role);
  const token = randomBytes(24).toString('base64url');
  const { invitationId, merchantName } = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'members.manage' });
    requireOwnerFor(actor, role, 'invite');
    // Owners and admins act in both modes: seating one is a live ownership change.
    if (isPrivileged(role)) {
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
      tokenHash: hashToken(token),
      invitedByUserId: input.userId,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
    });
    await recordAudit(tx, { actor, action: 'member.invite', targetId: id, data: { email: email.data, role }, ip: input.ip });
    return { invitationId: id, merchantName: actor.merchant.name };
  });
  if (isPrivileged(role)) {
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
    .where(eq(merchantInvitations.tokenHash, hashToken(token)));
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
      .where(eq(merchantInvitations.tokenHash, hashToken(input.token)))
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
  if (isPrivileged(accepted.role)) {
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

export async function changeMemberRole(input: Actor & { memberUserId: string; role: string; stepUp?: StepUpProof }): Promise<void> {
  const role = parseRole(input.role);
  const from = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'members.manage' });
    const target = await lockedMember(tx, input.merchantId, input.memberUserId);
    requireOwnerFor(actor, role, 'make');
    requireOwnerFor(actor, target.role, 'change');
    if (target.role === 'owner' && role !== 'owner') await requireAnotherOwner(tx, input.merchantId);
    if (isPrivileged(role) && rank(role) > rank(target.role)) {
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
  if (from !== role && (isPrivileged(from) || isPrivileged(role))) {
    await notifyOwners({
      merchantId: input.merchantId,
      actorUserId: input.userId,
      ip: input.ip,
      subject: `${await emailOf(input.memberUserId)} is now ${role}`,
      text: `The role of ${await emailOf(input.memberUserId)} changed from ${from} to ${role}.`,
    });
  }
}

async function emailOf(userId: string): Promise<string> {
  const [row] = await getDb().select({ email: users.email }).from(users).where(eq(users.id, userId));
  return row?.email ?? userId;
}

export async function removeMember(input: Actor & { memberUserId: string }): Promise<void> {
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
  if (isPrivileged(removedRole)) {
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

export async function revokeInvitation(input: Actor & { invitationId: string }, now = new Date()): Promise<void> {
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

/** Locks every member row of the merchant (so two concurrent changes cannot both remove "another" owner), returns the target. */
async function lockedMember(tx: DbOrTx, merchantId: string, userId: string) {
  const rows = await tx.select().from(merchantMembers).where(eq(merchantMembers.merchantId, merchantId)).for('update');
  const target = rows.find((row) => row.userId === userId);
  if (!target) throw new AppError('not_found', 'No such member.');
  return target;
}

async function requireAnotherOwner(tx: DbOrTx, merchantId: string): Promise<void> {
  const owners = await tx
    .select({ userId: merchantMembers.userId })
    .from(merchantMembers)
    .where(and(eq(merchantMembers.merchantId, merchantId), eq(merchantMembers.role, 'owner')));
  if (owners.length < 2) throw new AppError('invalid_request', 'A merchant needs at least one owner: make someone else owner first.');
}
