/** The audit log as an owner reads it: newest first, 50 a page; authorizes the reader itself. */
import 'server-only';
import { and, desc, eq, lt, or } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { auditLog, type AuditEntry } from '@/lib/db/schema';
import { authorizeMember } from '@/lib/merchants/permissions';

/** `before` is the last entry of the previous page. */
export async function readAuditLog(input: { userId: string; merchantId: string; before?: AuditEntry }): Promise<AuditEntry[]> {
  const db = getDb();
  await authorizeMember(db, { userId: input.userId, merchantId: input.merchantId, permission: 'audit_log.view' });
  const { before } = input;
  return db
    .select()
    .from(auditLog)
    .where(
      and(
        eq(auditLog.merchantId, input.merchantId),
        before
          ? or(lt(auditLog.createdAt, before.createdAt), and(eq(auditLog.createdAt, before.createdAt), lt(auditLog.id, before.id)))
          : undefined,
      ),
    )
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(50);
}
