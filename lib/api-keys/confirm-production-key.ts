/**
 * A new production key (created or rolled) moves real money: the merchant must be verified, the member
 * must have two-factor sign-in turned on and confirm with their PIN or a passkey (step-up, live).
 * Checked before anything is written.
 */
import { verifyStepUp, type StepUpProof } from '@/lib/accounts/step-up';
import { requireSecondFactor } from '@/lib/accounts/two-factor/second-factor';
import { getDb } from '@/lib/db/client';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { assertMayIssueLiveKeys } from './create-api-key';

/** A production key needs the second factor enrolled and a step-up; checked before anything is written. */
export async function confirmProductionKey(input: MemberActor & { stepUp?: StepUpProof }): Promise<void> {
  const { merchant } = await authorizeMember(getDb(), { ...input, permission: 'api_keys.manage' });
  assertMayIssueLiveKeys(merchant);
  const attempt = { action: 'production_key_create', merchantId: input.merchantId, mode: 'live', ip: input.ip } as const;
  await requireSecondFactor(input.userId, 'create production keys', { mode: 'live', attempt });
  await verifyStepUp({ userId: input.userId, proof: input.stepUp ?? {}, mode: 'live', attempt });
}
