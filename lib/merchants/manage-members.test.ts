/**
 * The Members tab's flow across its verbs (invite-member, accept-invitation, list-members,
 * change-member-role, remove-member): who may do what, the last owner, one merchant per account.
 */
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { auditLog, merchantMembers, merchants, users, type MemberRole } from '@/lib/db/schema';
import { readOutbox } from '@/lib/notifications/outbox';
import { newUser, userRow } from '@/test/accounts';

const PIN = '739104';
import { newMerchant } from '@/test/fixtures';
import { checkSessionClaims, issueSessionClaims } from '@/lib/auth/session-token';
import { describeInvitation } from './describe-invitation';
import { changeMemberRole } from './change-member-role';
import { acceptInvitation } from './accept-invitation';
import { INVITATION_TTL_MS, inviteMember } from './invite-member';
import { removeMember } from './remove-member';
import { listMembers } from './list-members';

let merchantId: string;
const people: Partial<Record<MemberRole, string>> = {};

beforeEach(async () => {
  merchantId = (await newMerchant()).id;
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
    people[role] = await newUser({ pin: PIN });
    await getDb().insert(merchantMembers).values({ merchantId, userId: people[role]!, role });
  }
});

const as = (role: MemberRole) => ({ userId: people[role]!, merchantId });

function invitedToken(email: string): string {
  const [mail] = readOutbox('email', email);
  return /\/invitations\/([\w-]+)/.exec(mail!.text)![1]!;
}

describe('members', () => {
  it('an admin invites by e-mail; the invitee accepts with that address and joins with the role', async () => {
    const invitee = await newUser();
    const { email } = await userRow(invitee);
    await inviteMember({ ...as('admin'), email: email!.toUpperCase(), role: 'developer' });
    const token = invitedToken(email!);
    const listed = await listMembers(as('viewer'));
    expect(listed.invitations.map((i) => [i.email, i.role])).toEqual([[email, 'developer']]);
    // The link, opened before signing in, says who invited which address to which merchant.
    const [merchant] = await getDb().select({ name: merchants.name }).from(merchants).where(eq(merchants.id, merchantId));
    expect(await describeInvitation(token)).toEqual({
      merchantName: merchant!.name,
      role: 'developer',
      email,
      invitedBy: (await userRow(people.admin!)).email,
    });
    expect(await describeInvitation('not-a-token')).toBeUndefined();

    const stranger = await newUser();
    await expect(acceptInvitation({ userId: stranger, token })).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining(email!),
    });
    expect(await acceptInvitation({ userId: invitee, token })).toEqual({ merchantId, role: 'developer' });
    await expect(acceptInvitation({ userId: invitee, token })).rejects.toMatchObject({ code: 'not_found' });
    expect(await describeInvitation(token)).toBeUndefined();
    expect((await listMembers(as('owner'))).members.find((m) => m.userId === invitee)?.role).toBe('developer');
    const joins = await getDb().select().from(auditLog).where(eq(auditLog.actorUserId, invitee));
    expect(joins.map((e) => e.action)).toEqual(['member.join']);
  });

  it('expired links, developers and viewers inviting, and admins touching owners are refused', async () => {
    const invitee = await newUser();
    const { email } = await userRow(invitee);
    await expect(inviteMember({ ...as('developer'), email: email!, role: 'viewer' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(inviteMember({ ...as('viewer'), email: email!, role: 'viewer' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(inviteMember({ ...as('admin'), email: email!, role: 'owner' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(inviteMember({ ...as('admin'), email: 'not-an-address', role: 'viewer' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'email',
    });
    await expect(inviteMember({ ...as('admin'), email: email!, role: 'emperor' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'role',
    });
    await expect(changeMemberRole({ ...as('admin'), memberUserId: people.owner!, role: 'viewer' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(removeMember({ ...as('admin'), memberUserId: people.owner! })).rejects.toMatchObject({ code: 'forbidden' });

    await inviteMember({ ...as('owner'), email: email!, role: 'viewer' }, new Date(Date.now() - INVITATION_TTL_MS - 1000));
    await expect(acceptInvitation({ userId: invitee, token: invitedToken(email!) })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('always keeps at least one owner, even when two owners demote each other at once', async () => {
    await expect(changeMemberRole({ ...as('owner'), memberUserId: people.owner!, role: 'admin' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(removeMember({ ...as('owner'), memberUserId: people.owner! })).rejects.toMatchObject({ code: 'invalid_request' });
    await changeMemberRole({ ...as('owner'), memberUserId: people.admin!, role: 'owner', stepUp: { pin: PIN } });
    const results = await Promise.allSettled([
      changeMemberRole({ ...as('owner'), memberUserId: people.admin!, role: 'viewer' }),
      changeMemberRole({ userId: people.admin!, merchantId, memberUserId: people.owner!, role: 'viewer' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const owners = await getDb().select().from(merchantMembers).where(eq(merchantMembers.merchantId, merchantId));
    expect(owners.filter((m) => m.role === 'owner')).toHaveLength(1);
  });

  it('a user belongs to at most one merchant: the database refuses a second seat', async () => {
    const other = await newMerchant();
    await expect(
      getDb().insert(merchantMembers).values({ merchantId: other.id, userId: people.viewer!, role: 'owner' }),
    ).rejects.toMatchObject({
      cause: { constraint_name: 'merchant_members_one_merchant_per_user_idx' },
    });
  });

  it('an owner removes a member, who then loses access', async () => {
    await removeMember({ ...as('owner'), memberUserId: people.developer! });
    await expect(listMembers(as('developer'))).rejects.toMatchObject({ code: 'forbidden' });
    const [user] = await getDb().select().from(users).where(eq(users.id, people.developer!));
    expect(user).toBeDefined();
  });

  it("removal ends the removed member's sessions; the acting owner's session stays", async () => {
    const removedSession = (await issueSessionClaims(people.viewer!))!;
    const ownerSession = (await issueSessionClaims(people.owner!))!;
    expect(await checkSessionClaims(removedSession)).not.toBeNull();
    await removeMember({ ...as('owner'), memberUserId: people.viewer! });
    expect(await checkSessionClaims(removedSession)).toBeNull();
    expect(await checkSessionClaims(ownerSession)).not.toBeNull();
  });
});
