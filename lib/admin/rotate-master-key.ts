/**
 * Master-key rotation. To rotate: set WALLET_MASTER_KEY to the new key, move the old one into
 * WALLET_MASTER_KEYS_PREVIOUS, deploy, run rotateMasterKey() (admin CLI `wallets rotate-master-key`) until
 * `onOldKeys` is empty, then remove the old key. It walks every column of the registry
 * (./sealed-columns.ts): wallets' data keys, webhook signing secrets, provider tokens, OpenID signing keys,
 * TOTP secrets, OAuth client secrets and on-ramp link keys.
 *
 * Rows are read in batches by id, and each is re-sealed in its own short transaction under FOR UPDATE
 * SKIP LOCKED: several runs can go at once (each row is handled by one of them), a failure leaves every
 * row done so far committed, and a second run only picks up what is still on an old key.
 */
import { and, asc, eq, getTableName, gt, or, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { log } from '@/lib/log';
import { masterKeyRing, WalletKeyError } from '@/lib/keyring/master-keys';
import { keyIdOf, onOtherKey, propertyOf, SEALED_TABLES, type SealedTable } from './sealed-columns';

export interface RotateMasterKeyResult {
  /** The current master key's id: every re-sealed value now names it. */
  masterKeyId: string;
  /** Rows re-sealed, in all tables. */
  resealed: number;
  /** Rows re-sealed, by what they hold ("wallet key", "OAuth client secret", …). */
  resealedByKind: Record<string, number>;
  /** Locked by a concurrent run, or re-sealed by it meanwhile. */
  skipped: number;
  /** Rows that could not be opened (their master key is not configured, or the row was tampered with). */
  failed: { kind: string; table: string; id: string; reason: string }[];
  /** After the run: values still naming another key, per column and key. Empty means done. */
  onOldKeys: OldKeyCount[];
}

export interface OldKeyCount {
  /** "table.column" */
  column: string;
  masterKeyId: string;
  count: number;
}

export async function rotateMasterKey({ batchSize = 100 }: { batchSize?: number } = {}): Promise<RotateMasterKeyResult> {
  const current = masterKeyRing().current.id;
  const result: RotateMasterKeyResult = {
    masterKeyId: current,
    resealed: 0,
    resealedByKind: {},
    skipped: 0,
    failed: [],
    onOldKeys: [],
  };
  for (const table of SEALED_TABLES) await resealTable(table, current, batchSize, result);
  result.onOldKeys = await valuesOnOldKeys(current);
  if (result.failed.length) {
    // Field names avoid "key": lib/log.ts redacts those, and these ids are not secret.
    log.warn('master-key rotation left rows on old keys', {
      currentMaster: current,
      failed: result.failed.length,
      firstFailure: result.failed[0]?.reason,
    });
  }
  return result;
}

/** Every value of every registered column that names a key other than `current`, counted per column and key. */
export async function valuesOnOldKeys(current = masterKeyRing().current.id): Promise<OldKeyCount[]> {
  const counts: OldKeyCount[] = [];
  for (const { table, columns } of SEALED_TABLES) {
    for (const column of columns) {
      const rows = await getDb()
        .select({ masterKeyId: sql<string>`${keyIdOf(column)}`, count: sql<number>`count(*)::int` })
        .from(table)
        .where(onOtherKey(column, current))
        .groupBy(keyIdOf(column));
      for (const row of rows) counts.push({ column: column.name, masterKeyId: row.masterKeyId, count: row.count });
    }
  }
  return counts;
}

async function resealTable(entry: SealedTable, current: string, batchSize: number, result: RotateMasterKeyResult): Promise<void> {
  const db = getDb();
  const stale = or(...entry.columns.map((column) => onOtherKey(column, current)))!;
  // Drizzle rows are keyed by property: where each column's value and key id are in a row read.
  const where = entry.columns.map((column) => ({
    value: propertyOf(entry.table, column.value),
    keyId: column.keyId === 'prefix' ? null : propertyOf(entry.table, column.keyId),
  }));
  const idProperty = propertyOf(entry.table, entry.id);
  // Walk by id so rows that fail (and stay on an old key) are passed once, not retried forever.
  let after = '';
  for (;;) {
    const batch = await db
      .select({ id: sql<string>`${entry.id}` })
      .from(entry.table)
      .where(and(stale, gt(entry.id, after)))
      .orderBy(asc(entry.id))
      .limit(batchSize);
    if (batch.length === 0) break;
    for (const { id } of batch) {
      try {
        const outcome = await db.transaction(async (tx) => {
          const [row] = (await tx
            .select()
            .from(entry.table)
            .where(and(eq(entry.id, id), stale))
            .for('update', { skipLocked: true })) as Record<string, unknown>[];
          if (!row) return 'skipped' as const;
          const update: Record<string, unknown> = {};
          entry.columns.forEach((column, index) => {
            if (isOnOtherKey(row, where[index]!, current)) Object.assign(update, column.reseal(row));
          });
          await tx.update(entry.table).set(update).where(eq(entry.id, row[idProperty]));
          return 'resealed' as const;
        });
        if (outcome === 'skipped') result.skipped++;
        else {
          result.resealed++;
          result.resealedByKind[entry.kind] = (result.resealedByKind[entry.kind] ?? 0) + 1;
        }
      } catch (error) {
        if (!(error instanceof WalletKeyError)) throw error;
        result.failed.push({ kind: entry.kind, table: getTableName(entry.table), id, reason: error.message });
      }
    }
    after = batch.at(-1)!.id;
  }
}

/** The same test as `onOtherKey`, on a row already read (`keyId` null: the value starts with the id). */
function isOnOtherKey(row: Record<string, unknown>, at: { value: string; keyId: string | null }, current: string): boolean {
  const value = row[at.value];
  if (value === null || value === undefined) return false;
  return (at.keyId === null ? String(value).split(':', 1)[0] : row[at.keyId]) !== current;
}
