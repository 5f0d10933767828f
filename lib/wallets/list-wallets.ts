import { asc, eq } from 'drizzle-orm';
import { CHAIN_NAMES, CHAINS, EVM_CHAIN_NAMES, type ChainName } from '@/lib/chains/registry';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { WALLET_FAMILIES, wallets, type WalletFamily } from '@/lib/db/schema';

export interface WalletView {
  id: string;
  family: WalletFamily;
  address: string;
  /** The networks (main and test) where this address receives funds. */
  chains: ChainName[];
}

const SOLANA_CHAIN_NAMES = CHAIN_NAMES.filter((name) => CHAINS[name].family === 'solana');

function chainsOfFamily(family: WalletFamily): ChainName[] {
  switch (family) {
    case 'evm':
      return [...EVM_CHAIN_NAMES];
    case 'solana':
      return [...SOLANA_CHAIN_NAMES];
  }
}

/** The account's wallets, EVM first. Selects only public columns: sealed keys never leave lib/wallets. */
export async function listWallets(userId: string, options: { tx?: DbOrTx } = {}): Promise<WalletView[]> {
  const db = options.tx ?? getDb();
  const rows = await db
    .select({ id: wallets.id, family: wallets.family, address: wallets.address })
    .from(wallets)
    .where(eq(wallets.userId, userId))
    .orderBy(asc(wallets.createdAt), asc(wallets.id));
  return rows
    .sort((a, b) => WALLET_FAMILIES.indexOf(a.family) - WALLET_FAMILIES.indexOf(b.family))
    .map((row) => ({ ...row, chains: chainsOfFamily(row.family) }));
}
