/**
 * The dashboard pages' preamble in one place: a signed-in user (else the sign-in page, back to
 * `returnTo`), who is a member of a merchant (else the dashboard's "become a merchant" start), and whose
 * role allows `permission` when the page names one (else a 403 that says who may; authorizeMember).
 * Server actions use currentMemberActor() and let the domain verb authorize in its transaction.
 */
import 'server-only';
import { redirect } from 'next/navigation';
import { requireUser } from '@/lib/auth/session';
import { getDb } from '@/lib/db/client';
import type { Merchant, MemberRole, User } from '@/lib/db/schema';
import { findMerchantOfUser } from './find-merchant-of-user';
import { authorizeMember, type Permission } from './permissions';

export async function requireMember(options: {
  returnTo: string;
  permission?: Permission;
}): Promise<{ user: User; membership: { merchant: Merchant; role: MemberRole } }> {
  const user = await requireUser({ returnTo: options.returnTo });
  const membership = await findMerchantOfUser(user.id);
  if (!membership) redirect('/dashboard');
  if (options.permission) {
    await authorizeMember(getDb(), { userId: user.id, merchantId: membership.merchant.id, permission: options.permission });
  }
  return { user, membership };
}
