/** The user's service wallet of a chain family: where sends come from, and whose balances the send form lists. */
import { and, eq } from 'drizzle-orm';
import type { ChainFamily } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { wallets } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';

export async function userWallet(db: DbOrTx, userId: string, family: ChainFamily) {
  const [wallet] = await db
    .select()
    .from(wallets)
    .where(and(eq(wallets.userId, userId), eq(wallets.family, family)));
  if (!wallet) throw new AppError('not_found', `This account has no ${family === 'evm' ? 'EVM' : 'Solana'} wallet.`);
  return wallet;
}
