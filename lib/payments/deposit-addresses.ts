/**
 * Deposit addresses: each EVM charge gets its own address, derived from the service's HD seed
 * (DEPOSIT_HD_SEED) at the next index of a PostgreSQL sequence (BIP-44 path m/44'/60'/0'/0/index).
 * Only the index is stored; the key is derived again when the funds are swept.
 */
import { sql } from 'drizzle-orm';
import { HDKey, hdKeyToAccount, type HDAccount } from 'viem/accounts';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { depositAddresses } from '@/lib/db/schema';
import { requireSecret } from '@/lib/env';
import { newId } from '@/lib/ids';

/** Deposit addresses are watched this long after their charge expires: late payments are still seen. */
export const LATE_PAYMENT_WATCH_MS = 24 * 60 * 60 * 1000;

let cachedRoot: { seed: string; key: HDKey } | undefined;

function rootKey(): HDKey {
  const seed = requireSecret('DEPOSIT_HD_SEED');
  if (cachedRoot?.seed !== seed) cachedRoot = { seed, key: HDKey.fromMasterSeed(Buffer.from(seed, 'base64')) };
  return cachedRoot.key;
}

export function depositAccount(derivationIndex: number): HDAccount {
  return hdKeyToAccount(rootKey(), { addressIndex: derivationIndex });
}

/** Allocates the charge's deposit address in the caller's transaction. EVM chains only (Solana uses a Solana Pay reference). */
export async function allocateDepositAddress(
  tx: DbOrTx,
  charge: { id: string; chain: ChainName; expiresAt: Date },
): Promise<string | undefined> {
  if (CHAINS[charge.chain].family !== 'evm') return undefined;
  const [row] = await tx.execute<{ index: string }>(sql`select nextval('deposit_derivation_index') as index`);
  const derivationIndex = Number(row!.index);
  const { address } = depositAccount(derivationIndex);
  await tx.insert(depositAddresses).values({
    id: newId('depositAddress'),
    chargeId: charge.id,
    chain: charge.chain,
    family: 'evm',
    address,
    derivationIndex,
    watchUntil: new Date(charge.expiresAt.getTime() + LATE_PAYMENT_WATCH_MS),
  });
  return address;
}
