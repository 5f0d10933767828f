import { z } from 'zod';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { createApiKey, type CreatedApiKey } from '@/lib/api-keys/create-api-key';
import { getDb } from '@/lib/db/client';
import { merchants, type Merchant } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { cleanDisplayText } from '@/lib/text';

export const createMerchantInputSchema = z.object({
  email: z.email('must be an e-mail address'),
  name: z.string().overwrite(cleanDisplayText).min(1, 'is required').max(200),
  verified: z.boolean().default(false),
});

/**
 * A new merchant with its test key (always) and production key (when already verified).
 * The plaintext keys are returned once and never stored.
 */
export async function createMerchant(input: z.input<typeof createMerchantInputSchema>): Promise<{
  merchant: Merchant;
  keys: CreatedApiKey[];
}> {
  const parsed = createMerchantInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_request', `${issue.path.join('.')}: ${issue.message}`, { param: issue.path.join('.') });
  }
  const { email, name, verified } = parsed.data;
  return getDb().transaction(async (tx) => {
    const [merchant] = await tx
      .insert(merchants)
      .values({ id: newId('merchant'), email: email.toLowerCase(), name, verifiedAt: verified ? new Date() : null })
      .returning();
    await ensureMerchantWallets(tx, merchant!.id);
    const keys = [await createApiKey({ merchantId: merchant!.id, mode: 'test', tx })];
    if (verified) keys.push(await createApiKey({ merchantId: merchant!.id, mode: 'live', tx }));
    return { merchant: merchant!, keys };
  });
}
