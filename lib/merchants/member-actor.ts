import { headers } from 'next/headers';
import { requireUserForAction } from '@/lib/auth/session';
import { AppError } from '@/lib/errors';
import { findMerchantOfUser } from './find-merchant-of-user';
import { clientIpFrom } from '@/lib/http/client-ip';

/** For dashboard server actions: the signed-in member, their merchant and IP (for the audit log). */
export async function currentMemberActor(): Promise<{ userId: string; merchantId: string; ip: string | null }> {
  const user = await requireUserForAction();
  const membership = await findMerchantOfUser(user.id);
  if (!membership) throw new AppError('forbidden', 'This account is not a merchant.');
  const list = await headers();
  return { userId: user.id, merchantId: membership.merchant.id, ip: clientIpFrom(list) };
}
