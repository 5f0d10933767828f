import type { DbOrTx } from '@/lib/db/client';
import { auditLog } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import type { MemberRole } from '@/lib/db/schema';

/** Who did it: a member of the merchant, as lib/merchants/permissions.ts authorized them. */
export interface AuditActor {
  merchant: { id: string };
  userId: string;
  role: MemberRole;
}

/** One audit entry, in the caller's transaction (the action and its record commit together). Never put secrets in `data`. */
export async function recordAudit(
  tx: DbOrTx,
  input: { actor: AuditActor; action: string; targetId?: string; mode?: string; data?: Record<string, unknown>; ip?: string | null },
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
