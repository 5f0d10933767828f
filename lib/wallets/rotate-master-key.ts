/**
 * Master-key rotation. To rotate: set WALLET_MASTER_KEY to the new key, move the old one into
 * WALLET_MASTER_KEYS_PREVIOUS, deploy, run rotateMasterKey() until it reports nothing failed, then remove
 * the old key. Only data keys are re-sealed; private-key ciphertexts never change, so a row is either on the
 * old or on the new master key and opens with the ring in both states.
 *
 * Each wallet is re-sealed in its own short transaction under FOR UPDATE SKIP LOCKED: several runs can go
 * at once (each row is handled by one of them), and a failure leaves every row done so far committed.
 */
import { and, asc, eq, gt, ne } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { wallets } from '@/lib/db/schema';
import { log } from '@/lib/log';
import { resealDataKey } from './envelope';
import { masterKeyRing, WalletKeyError } from './master-keys';

export interface RotateMasterKeyResult {
  /** The current master key's id: every re-sealed wallet now names it. */
  masterKeyId: string;
  resealed: number;
  /** Locked by a concurrent run, or re-sealed by it meanwhile. */
  skipped: number;
  /** Wallets that could not be opened (their master key is not configured, or their row was tampered with). */
  failed: { walletId: string; masterKeyId: string; reason: string }[];
}

export async function rotateMasterKey({ batchSize = 100 }: { batchSize?: number } = {}): Promise<RotateMasterKeyResult> {
  const db = getDb();
  const current = masterKeyRing().current.id;
  const result: RotateMasterKeyResult = { masterKeyId: current, resealed: 0, skipped: 0, failed: [] };
  // Walk by id so rows that fail (and stay on an old key) are passed once, not retried forever.
  let after = '';
  for (;;) {
    const batch = await db
      .select({ id: wallets.id })
      .from(wallets)
      .where(and(ne(wallets.masterKeyId, current), gt(wallets.id, after)))
      .orderBy(asc(wallets.id))
      .limit(batchSize);
    if (batch.length === 0) break;
    for (const { id } of batch) {
      try {
        const outcome = await db.transaction(async (tx) => {
          const [row] = await tx
            .select()
            .from(wallets)
            .where(and(eq(wallets.id, id), ne(wallets.masterKeyId, current)))
            .for('update', { skipLocked: true });
          if (!row) return 'skipped' as const;
          await tx.update(wallets).set(resealDataKey(row)).where(eq(wallets.id, row.id));
          return 'resealed' as const;
        });
        result[outcome]++;
      } catch (error) {
        if (!(error instanceof WalletKeyError)) throw error;
        const [row] = await db.select({ masterKeyId: wallets.masterKeyId }).from(wallets).where(eq(wallets.id, id));
        result.failed.push({ walletId: id, masterKeyId: row?.masterKeyId ?? 'unknown', reason: error.message });
      }
    }
    after = batch.at(-1)!.id;
  }
  if (result.failed.length) {
    // Field names avoid "key": lib/log.ts redacts those, and these ids are not secret.
    log.warn('wallet master-key rotation left wallets on old keys', {
      currentMaster: current,
      failed: result.failed.length,
      firstFailure: result.failed[0]?.reason,
    });
  }
  return result;
}
