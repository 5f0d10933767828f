/**
 * Business verification, requested from the dashboard Profile tab (spec account rules 6–7): a merchant
 * gets production keys only once support has verified it (lib/api-keys/create-api-key.ts,
 * verify-merchant.ts). Becoming a merchant itself is lib/onboarding/become-merchant.ts.
 */
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchants, type Merchant } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { recordAudit } from '@/lib/audit/record-audit';
import { AppError } from '@/lib/errors';
import { authorizeMember } from './permissions';
import { sendEmail } from '@/lib/notifications/send-email';

/**
 * "Request verification" from the dashboard Profile tab: the member must be allowed to manage the
 * profile; the request and its audit row commit together, and support is told after the commit.
 */
export async function requestBusinessVerification({
  ctx,
}: {
  ctx: { userId: string; merchantId: string; ip?: string | null };
}): Promise<Merchant> {
  const merchant = await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { userId: ctx.userId, merchantId: ctx.merchantId, permission: 'profile.manage' });
    const [updated] = await tx
      .update(merchants)
      .set({ verificationRequestedAt: new Date() })
      .where(eq(merchants.id, ctx.merchantId))
      .returning();
    if (!updated) throw new AppError('not_found', `No merchant ${ctx.merchantId}.`);
    await recordAudit(tx, { actor, action: 'merchant.request_verification', ip: ctx.ip ?? null });
    return updated;
  });
  if (!merchant.verifiedAt) {
    await sendEmail({
      to: env().SUPPORT_EMAIL,
      subject: `Business verification requested: ${merchant.name} (${merchant.id})`,
      text: `${merchant.name} <${merchant.email}> asks for business verification.\n\nWhen it is done: npm run admin -- merchant verify ${merchant.id}`,
    });
  }
  return merchant;
}
