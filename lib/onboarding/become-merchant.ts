/**
 * Spec account rules 6–7: an existing account becomes a merchant (wallet website Profile page, or the
 * dashboard right after sign-up). The business name becomes the merchant's name (the on-ramp's
 * wallet_label). The account is the merchant's owner; a test key is issued at once, a production key
 * only after business verification (support runs `npm run admin -- merchant verify`).
 */
import { eq } from 'drizzle-orm';
import { createApiKey, type CreatedApiKey } from '@/lib/api-keys/create-api-key';
import { getDb } from '@/lib/db/client';
import { merchantMembers, merchants, users, type Merchant } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { businessNameSchema } from '@/lib/merchants/schemas';

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
