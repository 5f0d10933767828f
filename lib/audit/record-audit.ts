import { and, desc, eq, lt, or } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { auditLog, type AuditEntry } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import type { AuthorizedMember } from '@/lib/merchants/permissions';

/** One audit entry, in the caller's transaction (the action and its record commit together). Never put secrets in `data`. */
export async function recordAudit(
  tx: DbOrTx,
  input: { actor: AuthorizedMember; action: string; targetId?: string; mode?: string; data?: Record<string, unknown>; ip?: string | null },
): Promise<void> {
  await tx.insert(auditLog).values({
    id: newId('auditEntry'),
    merchantId: input.actor.merchant.id,
    actorUserId: input.actor.userId,
    actorRole: input.actor.role,
    action: input.action,
    targetId: input.targetId ?? null,
    mode: input.mode ?? null,
    data: input.data ?? {},
    ip: input.ip ?? null,
  });
}

/** Newest first, 50 a page; `before` is the last entry's id of the previous page. */
export async function listAuditLog(merchantId: string, before?: AuditEntry): Promise<AuditEntry[]> {
  return getDb()
    .select()
    .from(auditLog)
    .where(
      and(
        eq(auditLog.merchantId, merchantId),
        before
          ? or(lt(auditLog.createdAt, before.createdAt), and(eq(auditLog.createdAt, before.createdAt), lt(auditLog.id, before.id)))
          : undefined,
      ),
    )
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(50);
}
