import { eq } from 'drizzle-orm';
import type { DbOrTx } from '@/lib/db/client';
import { WALLET_FAMILIES, wallets, type WalletFamily } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { sealWalletKey } from './envelope';
import { generateWalletKey } from './generate-keys';

export interface CreatedWallet {
  id: string;
  family: WalletFamily;
  address: string;
}

type WalletOwner = { userId: string } | { merchantId: string };

/**
 * Give an account (or a merchant) its wallets: one EVM address (every EVM chain) and one Solana address,
 * generated server-side and stored sealed (lib/keyring/envelope.ts). Runs in the caller's transaction so
 * an account never exists without its wallets. Idempotent per (owner, family): the unique index decides,
 * so a retry or a concurrent call keeps the first wallet and never replaces a key that may hold funds.
 */
async function createWallets(tx: DbOrTx, owner: WalletOwner): Promise<CreatedWallet[]> {
  const ownerColumn = 'userId' in owner ? wallets.userId : wallets.merchantId;
  const ownerId = 'userId' in owner ? owner.userId : owner.merchantId;
  const existing = () =>
    tx.select({ id: wallets.id, family: wallets.family, address: wallets.address }).from(wallets).where(eq(ownerColumn, ownerId));
  // Read first: pages and verbs call this on every use, and an owner with its wallets needs no key
  // generation and no write (a read-only transaction can call it).
  let rows = await existing();
  const missing = WALLET_FAMILIES.filter((family) => !rows.some((row) => row.family === family));
  if (missing.length === 0) return WALLET_FAMILIES.map((family) => rows.find((row) => row.family === family)!);
  for (const family of missing) {
    const id = newId('wallet');
    const generated = generateWalletKey(family);
    const sealed = sealWalletKey({ id, family, address: generated.address }, generated.privateKey);
    generated.privateKey.fill(0);
    await tx
      .insert(wallets)
      .values({ id, ...owner, family, address: generated.address, ...sealed })
      .onConflictDoNothing({ target: [ownerColumn, wallets.family] });
  }
  rows = await existing();
  return WALLET_FAMILIES.map((family) => rows.find((row) => row.family === family)!);
}

export function createWalletsForUser(tx: DbOrTx, userId: string): Promise<CreatedWallet[]> {
  return createWallets(tx, { userId });
}

/** The merchant's service wallets, created on first use (merchants made before wallets existed get them then). */
export function ensureMerchantWallets(tx: DbOrTx, merchantId: string): Promise<CreatedWallet[]> {
  return createWallets(tx, { merchantId });
}
