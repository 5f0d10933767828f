/** The user's service wallet addresses, one per chain family ('' for a family the account has no wallet of): the senders of /wallet/send. */
import { eq } from 'drizzle-orm';
import type { ChainFamily } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { wallets } from '@/lib/db/schema';

export async function userWallets(db: DbOrTx, userId: string): Promise<Record<ChainFamily, string>> {
  const rows = await db.select({ family: wallets.family, address: wallets.address }).from(wallets).where(eq(wallets.userId, userId));
  const of = (family: ChainFamily) => rows.find((row) => row.family === family)?.address ?? '';
  return { evm: of('evm'), solana: of('solana') };
}
