/**
 * Export a wallet's private key — the one place a key leaves the server:
 *
 *  - only the owner: another account's wallet (or an unknown id) is not_found, before any PIN check;
 *  - PIN (or a passkey) required: verifyStepUp refuses a missing/malformed PIN, counts wrong ones and
 *    locks (in its own transaction, so a wrong PIN is recorded even though the export fails);
 *  - the decrypted key is checked against the stored address before it is handed out;
 *  - the export is recorded (time, IP, user agent) before the key is returned, so no key is returned
 *    unrecorded; the key itself is returned once and never logged or stored in clear.
 */
import { and, desc, eq } from 'drizzle-orm';
import { verifyStepUp } from '@/lib/accounts/step-up';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { walletExports, wallets, type WalletFamily } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { openWalletKey } from '@/lib/keyring/envelope';
import { addressOfPrivateKey, formatPrivateKey, type PrivateKeyFormat } from '@/lib/keyring/generate-keys';
import { WalletKeyError } from '@/lib/keyring/master-keys';

export interface ExportPrivateKeyInput {
  userId: string;
  walletId: string;
  pin?: string;
  /** A passkey assertion (JSON) instead of the PIN. */
  passkeyResponse?: string;
  ip: string | null;
  userAgent: string | null;
}

export interface ExportedPrivateKey {
  /** EVM: 0x-prefixed hex (32 bytes). Solana: base58 of the 64-byte secret ‖ public key. */
  privateKey: string;
  format: PrivateKeyFormat;
  address: string;
}

export async function exportPrivateKey(input: ExportPrivateKeyInput): Promise<ExportedPrivateKey> {
  const db = getDb();
  const [wallet] = await db
    .select()
    .from(wallets)
    .where(and(eq(wallets.id, input.walletId), eq(wallets.userId, input.userId)));
  if (!wallet) throw new AppError('not_found', `No wallet ${input.walletId} in this account.`, { param: 'walletId' });

  // Live whatever the network: the key controls the wallet's funds on every chain.
  await verifyStepUp({
    userId: input.userId,
    proof: { pin: input.pin, passkeyResponse: input.passkeyResponse },
    mode: 'live',
    attempt: { action: 'private_key_export', ip: input.ip, userAgent: input.userAgent },
  });

  const raw = openWalletKey(wallet);
  try {
    if (addressOfPrivateKey(wallet.family, raw) !== wallet.address) {
      throw new WalletKeyError(`Wallet ${wallet.id}: the decrypted key does not control ${wallet.address}.`);
    }
    const exported = formatPrivateKey(wallet.family, raw);
    await db.insert(walletExports).values({
      id: newId('walletExport'),
      walletId: wallet.id,
      userId: input.userId,
      ip: input.ip,
      userAgent: input.userAgent,
    });
    return { ...exported, address: wallet.address };
  } finally {
    raw.fill(0);
  }
}

export interface WalletExportView {
  id: string;
  walletId: string;
  family: WalletFamily;
  address: string;
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
}

/** The account's private-key exports, newest first: shown so the owner can spot one they did not make. */
export async function listWalletExports(userId: string, options: { tx?: DbOrTx; limit?: number } = {}): Promise<WalletExportView[]> {
  const db = options.tx ?? getDb();
  return db
    .select({
      id: walletExports.id,
      walletId: walletExports.walletId,
      family: wallets.family,
      address: wallets.address,
      ip: walletExports.ip,
      userAgent: walletExports.userAgent,
      createdAt: walletExports.createdAt,
    })
    .from(walletExports)
    .innerJoin(wallets, eq(wallets.id, walletExports.walletId))
    .where(eq(walletExports.userId, userId))
    .orderBy(desc(walletExports.createdAt), desc(walletExports.id))
    .limit(options.limit ?? 100);
}
