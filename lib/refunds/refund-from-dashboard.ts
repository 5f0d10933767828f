/**
 * The dashboard's Refund button: owners and admins ('charges.refund'), on a charge of the dashboard's mode;
 * audited in the refund's transaction. The form's id makes a double submit one refund.
 *
 *  - To the payer (no address, or an address that paid the charge): confirmed with the member's PIN or a
 *    passkey (step-up); authority `member` (admin) or `owner_step_up` (owner) → original_payer.
 *  - To an address that never paid (N2): an owner only, with the checks of a withdrawal (withdraw.ts): two-factor
 *    sign-in on a verified merchant, no new-owner hold, step-up; every owner is e-mailed. Authority
 *    owner_step_up → owner_approved. An admin gets 403 refund_destination_not_payer.
 */
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { requireSecondFactor } from '@/lib/accounts/two-factor/second-factor';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import type { ApiKeyMode } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { isIdOf } from '@/lib/ids';
import { notifyOwners } from '@/lib/merchants/notify-owners';
import { requireNoWithdrawalHold } from '@/lib/merchants/withdrawal-hold';
import { authorizeMember } from '@/lib/merchants/permissions';
import { createRefund } from './create-refund';
import { isPayerOfCharge } from './refund-source';
import { createRefundBodySchema, type CreatedRefund } from './schemas';

export async function refundFromDashboard(
  input: {
    userId: string;
    merchantId: string;
    mode: ApiKeyMode;
    chargeId: string;
    amount?: string;
    toAddress?: string;
    reason?: string;
    requestId: string;
    ip?: string | null;
  } & StepUpProof,
  options: SolanaRpcOptions = {},
): Promise<CreatedRefund> {
  if (!isIdOf('refundRequest', input.requestId)) {
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
  const toAddress = parsed.data.toAddress;
  const ownerApproved = toAddress !== undefined && !(await isPayerOfCharge(input, toAddress));
  const attempt = {
    action: ownerApproved ? 'refund_to_other_address' : 'refund',
    merchantId: input.merchantId,
    mode: input.mode,
    ip: input.ip,
  } as const;
  if (ownerApproved) {
    if (actor.role !== 'owner') {
      throw new AppError(
        'refund_destination_not_payer',
        'That address did not pay this charge: only an owner can refund to another address. Leave the address empty to refund the payer.',
        { param: 'toAddress' },
      );
    }
    if (actor.merchant.verifiedAt)
      await requireSecondFactor(input.userId, 'refund to an address that did not pay', { mode: input.mode, attempt });
    await requireNoWithdrawalHold(getDb(), input);
  }
  await verifyStepUp({
    userId: input.userId,
    proof: { pin: input.pin, passkeyResponse: input.passkeyResponse },
    mode: input.mode,
    attempt,
  });
  const { refund, replayed } = await createRefund(
    {
      ctx: {
        merchantId: input.merchantId,
        mode: input.mode,
        actor: `member:${input.userId}`,
        ...(ownerApproved || actor.role === 'owner' ? { ownerApproval: { userId: input.userId } } : {}),
      },
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
            destinationClass: recorded.destinationClass,
            txHash: recorded.txHash,
          },
          ip: input.ip,
        }),
    },
    options,
  );
  if (ownerApproved && !replayed) {
    await notifyOwners({
      merchantId: input.merchantId,
      actorUserId: input.userId,
      ip: input.ip,
      subject: `refund of ${refund.amount} ${refund.token.symbol} to an address that did not pay`,
      text: `${refund.amount} ${refund.token.symbol} (${input.mode} mode) of charge ${input.chargeId} were refunded on ${refund.chain} to ${refund.destination}, an address that did not pay the charge.\nRefund: ${refund.id}`,
    });
  }
  return refund;
}
