import 'server-only';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchants, users, type MemberRole } from '@/lib/db/schema';
import { findInvitation } from './accept-invitation';

export interface InvitationSummary {
  merchantName: string;
  role: MemberRole;
  /** The address invited: only an account with it can accept. */
  email: string;
  /** The inviter's e-mail address (accounts have no display name). */
  invitedBy: string | null;
}

/**
 * What an open invitation link shows before anyone signs in: who invited which address to which merchant,
 * with which role. The token is the secret (only its hash is stored), so whoever holds the link may read this.
 */
export async function describeInvitation(token: string, now = new Date()): Promise<InvitationSummary | undefined> {
  const invitation = await findInvitation(token, now);
  if (!invitation) return undefined;
  const [row] = await getDb()
    .select({ merchantName: merchants.name, invitedBy: users.email })
    .from(merchants)
    .leftJoin(users, eq(users.id, invitation.invitedByUserId))
    .where(eq(merchants.id, invitation.merchantId));
  if (!row) return undefined;
  return { merchantName: row.merchantName, role: invitation.role, email: invitation.email, invitedBy: row.invitedBy };
}
