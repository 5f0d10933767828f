/**
 * Who may do what in a merchant's dashboard. Every mutating action names its permission and is checked
 * on the server (authorizeMember) — the UI hiding a button is a courtesy, not the control.
 *
 *   owner      everything, including members' roles, withdrawals, the audit log, and contracts and
 *              fulfilment rules (they make the service wallet call a contract: with step-up)
 *   admin      everything but owners' seats, withdrawals, the audit log, contracts and rules
 *   developer  API keys, webhooks, tokens, OAuth apps, retrying fulfilments; reads the rest
 *   viewer     reads
 *
 * Owner and admin seats are ownership (isPrivilegedRole): seating one needs the actor's step-up and every
 * owner hears of each change to them.
 */
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { MEMBER_ROLES, merchantMembers, merchants, type Merchant, type MemberRole } from '@/lib/db/schema';

export type { MemberRole };
import { AppError } from '@/lib/errors';

const PERMISSIONS = {
  'dashboard.view': ['owner', 'admin', 'developer', 'viewer'],
  'api_keys.manage': ['owner', 'admin', 'developer'],
  'webhooks.manage': ['owner', 'admin', 'developer'],
  'tokens.manage': ['owner', 'admin', 'developer'],
  'oauth_apps.manage': ['owner', 'admin', 'developer'],
  'contracts.manage': ['owner'],
  'fulfilments.run': ['owner', 'admin', 'developer'],
  'profile.manage': ['owner', 'admin'],
  'members.manage': ['owner', 'admin'],
  'funds.withdraw': ['owner'],
  'charges.refund': ['owner', 'admin'],
  'audit_log.view': ['owner'],
} as const satisfies Record<string, readonly MemberRole[]>;

export type Permission = keyof typeof PERMISSIONS;

export function roleAllows(role: MemberRole, permission: Permission): boolean {
  return (PERMISSIONS[permission] as readonly MemberRole[]).includes(role);
}

/** Only an owner seats, unseats or removes an owner; admins manage every other seat. */
function mayTouchSeat(actorRole: MemberRole, seat: MemberRole): boolean {
  return seat !== 'owner' || actorRole === 'owner';
}

/** Roles whose seats are ownership: inviting or promoting into them needs a step-up, and owners hear of every change. */
const PRIVILEGED_ROLES: readonly MemberRole[] = ['owner', 'admin'];
export const isPrivilegedRole = (role: MemberRole) => PRIVILEGED_ROLES.includes(role);

/** A role from a form: one of MEMBER_ROLES, else a 400 on `role`. */
export function parseMemberRole(role: string): MemberRole {
  if (!(MEMBER_ROLES as readonly string[]).includes(role))
    throw new AppError('invalid_request', `The role is one of ${MEMBER_ROLES.join(', ')}.`, { param: 'role' });
  return role as MemberRole;
}

/** mayTouchSeat as a 403: "Only an owner can <what> an owner." */
export function requireOwnerFor(actor: AuthorizedMember, role: MemberRole, what: string): void {
  if (!mayTouchSeat(actor.role, role)) throw new AppError('forbidden', `Only an owner can ${what} an owner.`);
}

/** The roles this member may invite someone to or give someone (none without `members.manage`). */
export function assignableRoles(actorRole: MemberRole): MemberRole[] {
  if (!roleAllows(actorRole, 'members.manage')) return [];
  return MEMBER_ROLES.filter((role) => mayTouchSeat(actorRole, role));
}

/** Whether this member may change or remove a member holding `memberRole`. */
export function canManageMember(actorRole: MemberRole, memberRole: MemberRole): boolean {
  return roleAllows(actorRole, 'members.manage') && mayTouchSeat(actorRole, memberRole);
}

/** A signed-in member calling a dashboard verb; the verb authorizes them in its own transaction (authorizeMember). */
export interface MemberActor {
  userId: string;
  merchantId: string;
  ip?: string | null;
}

export interface AuthorizedMember {
  merchant: Merchant;
  userId: string;
  role: MemberRole;
}

/** The user's membership of the merchant, if its role allows `permission`; else a 403 that says who may. */
export async function authorizeMember(
  tx: DbOrTx,
  input: { userId: string; merchantId: string; permission: Permission },
): Promise<AuthorizedMember> {
  const [row] = await tx
    .select({ merchant: merchants, role: merchantMembers.role })
    .from(merchantMembers)
    .innerJoin(merchants, eq(merchants.id, merchantMembers.merchantId))
    .where(and(eq(merchantMembers.merchantId, input.merchantId), eq(merchantMembers.userId, input.userId)));
  if (!row) throw new AppError('forbidden', 'You are not a member of this merchant.');
  if (!roleAllows(row.role, input.permission)) {
    throw new AppError(
      'forbidden',
      `Your role (${row.role}) cannot do this; ask an ${PERMISSIONS[input.permission][0]}${PERMISSIONS[input.permission].length > 1 ? ` or ${PERMISSIONS[input.permission].slice(1).join(' / ')}` : ''}.`,
    );
  }
  return { merchant: row.merchant, userId: input.userId, role: row.role };
}
