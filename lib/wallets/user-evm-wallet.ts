/** The user's EVM wallet: where sends come from, and whose balances the send form lists. */
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { wallets } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

export async function userEvmWallet(db: DbOrTx, userId: string) {
  const [wallet] = await db
    .select()
    .from(wallets)
    .where(and(eq(wallets.userId, userId), eq(wallets.family, 'evm')));
  if (!wallet) throw new AppError('not_found', 'This account has no EVM wallet.');
  return wallet;
}
