/**
 * Spec account rules 6–7: an existing account becomes a merchant (wallet website Profile page, or the
 * dashboard right after sign-up). The business name becomes the merchant's name (the on-ramp's
 * wallet_label). The account is the merchant's owner; a test key is issued at once, a production key
 * only after business verification (support runs `npm run admin -- merchant verify`).
 */
import { eq } from 'drizzle-orm';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { z } from 'zod';
import { createApiKey, type CreatedApiKey } from '@/lib/api-keys/create-api-key';
import { getDb } from '@/lib/db/client';
import { merchantMembers, merchants, users, type MemberRole, type Merchant } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { recordAudit } from '@/lib/audit/record-audit';
import { AppError } from '@/lib/errors';
import { authorizeMember } from './permissions';
import { newId } from '@/lib/ids';
import { sendEmail } from '@/lib/notifications/send-email';
import { cleanDisplayText } from '@/lib/text';

/** The merchant's name: shown to buyers (checkout, on-ramp label), so bidi, control and invisible characters are removed (lib/text.ts). */
export const businessNameSchema = z
  .string()
  .overwrite(cleanDisplayText)
  .min(2, 'must be at least 2 characters')
  .max(100, 'must be at most 100 characters');

export async function findMerchantOfUser(userId: string): Promise<{ merchant: Merchant; role: MemberRole } | undefined> {
  const [row] = await getDb()
    .select({ merchant: merchants, role: merchantMembers.role })
    .from(merchantMembers)
    .innerJoin(merchants, eq(merchantMembers.merchantId, merchants.id))
    .where(eq(merchantMembers.userId, userId))
    .limit(1);
  return row;
}

export async function becomeMerchant({ userId, businessName }: { userId: string; businessName: string }): Promise<{
  merchant: Merchant;
  testKey: CreatedApiKey;
}> {
  const name = businessNameSchema.safeParse(businessName);
  if (!name.success) throw new AppError('invalid_request', `Business name ${name.error.issues[0]!.message}.`, { param: 'businessName' });
  return getDb().transaction(async (tx) => {
    // One merchant per account; the row lock keeps a double submit from making two.
    const [user] = await tx.select().from(users).where(eq(users.id, userId)).for('update');
    if (!user?.email) throw new AppError('email_not_verified', 'Verify your e-mail before creating a merchant account.');
    const [existing] = await tx.select().from(merchantMembers).where(eq(merchantMembers.userId, userId));
    if (existing) throw new AppError('account_exists', 'This account is already a merchant. Open the dashboard.');
    const [merchant] = await tx
      .insert(merchants)
      .values({ id: newId('merchant'), name: name.data, email: user.email })
      .returning();
    await tx.insert(merchantMembers).values({ merchantId: merchant!.id, userId, role: 'owner' });
    await ensureMerchantWallets(tx, merchant!.id);
    const testKey = await createApiKey({ merchantId: merchant!.id, mode: 'test', tx });
    return { merchant: merchant!, testKey };
  });
}

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
