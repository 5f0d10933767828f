/**
 * The dashboard's Refund button: owners and admins ('charges.refund'), confirmed with their own PIN
 * (attempt-limited like every PIN check), on a charge of the dashboard's mode; audited in the refund's
 * transaction. The form's id makes a double submit one refund.
 */
import { verifyPin } from '@/lib/accounts/pin';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import type { ApiKeyMode } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { authorizeMember } from '@/lib/merchants/permissions';
import { createRefund } from './create-refund';
import { createRefundBodySchema, type RefundResource } from './schemas';

const REQUEST_ID_PATTERN = /^rfq_[0-9A-Za-z]{22}$/;

export async function refundFromDashboard(input: {
  userId: string;
  merchantId: string;
  mode: ApiKeyMode;
  chargeId: string;
  amount?: string;
  toAddress?: string;
  reason?: string;
  pin: string;
  requestId: string;
  ip?: string | null;
}): Promise<RefundResource> {
  if (!REQUEST_ID_PATTERN.test(input.requestId)) {
    throw new AppError('invalid_request', 'This refund form is out of date: reload the page and try again.', { param: 'requestId' });
  }
  const parsed = createRefundBodySchema.safeParse({
    ...(input.amount ? { amount: input.amount } : {}),
    ...(input.toAddress ? { toAddress: input.toAddress } : {}),
    ...(input.reason ? { reason: input.reason } : {}),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError('invalid_request', `${issue.path.join('.')}: ${issue.message}`, { param: issue.path.join('.') });
  }
  const actor = await authorizeMember(getDb(), { ...input, permission: 'charges.refund' });
  await verifyPin({ userId: input.userId, pin: input.pin });
  const { refund } = await createRefund({
    ctx: { merchantId: input.merchantId, mode: input.mode, actor: `member:${input.userId}` },
    chargeId: input.chargeId,
    body: parsed.data,
    idempotencyKey: input.requestId,
    onRecorded: (tx, recorded) =>
      recordAudit(tx, {
        actor,
        action: 'charges.refund',
        targetId: recorded.id,
        mode: input.mode,
        data: {
          chargeId: input.chargeId,
          amountBaseUnits: recorded.amountBaseUnits.toString(),
          destination: recorded.destination,
          txHash: recorded.txHash,
        },
        ip: input.ip,
      }),
  });
  return refund;
}
