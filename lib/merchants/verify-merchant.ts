import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchants, type Merchant } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { forgetMerchantCredentials } from '@/lib/merchants/credential-cache';

/**
 * Business verification done (support staff): the merchant may now hold production keys and make
 * direct transfers. Also the re-review after a rename: it clears `reviewRequiredAt`.
 */
export async function verifyMerchant(merchantId: string): Promise<Merchant> {
  const [merchant] = await getDb().select().from(merchants).where(eq(merchants.id, merchantId));
  if (!merchant) throw new AppError('not_found', `No merchant ${merchantId}.`);
  if (merchant.verifiedAt && !merchant.reviewRequiredAt) return merchant;
  const now = new Date();
  const [updated] = await getDb()
    .update(merchants)
    .set({ verifiedAt: now, reviewRequiredAt: null, updatedAt: now })
    .where(eq(merchants.id, merchantId))
    .returning();
  forgetMerchantCredentials(merchantId);
  return updated!;
}
