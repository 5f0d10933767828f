/**
 * Rolling a key from the API Keys tab (`api_keys.manage`), as Stripe's roll does: a new key with the
 * same mode, kind and name, its plaintext returned once; the old one keeps working for the overlap
 * (none, 1 h, 24 h or 7 days: `revoked_at` set in the future) so deployments switch without downtime.
 * The API Keys tab's other verbs: list-api-keys, create-key-for-member, revoke-key-for-member.
 *
 *  - Rolling a production key needs a verified merchant, two-factor sign-in and a step-up
 *    (confirm-production-key.ts), and every owner is e-mailed (notify-new-production-key.ts).
 *  - The new key, the old key's end and the audit entry commit together; the credential cache forgets
 *    the merchant's keys either way.
 */
import { and, eq } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { apiKeys } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import type { StepUpProof } from '@/lib/accounts/step-up';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { confirmProductionKey } from './confirm-production-key';
import { createApiKey, type CreatedApiKey } from './create-api-key';
import { liveKeyOfMerchant } from './live-key-of-merchant';
import { notifyNewProductionKey } from './notify-new-production-key';
import { forgetMerchantCredentials } from '@/lib/merchants/credential-cache';

const ROLL_OVERLAPS_HOURS = [0, 1, 24, 168] as const;
export type RollOverlapHours = (typeof ROLL_OVERLAPS_HOURS)[number];

export async function rollKeyForMember(
  input: MemberActor & { keyId: string; overlapHours: RollOverlapHours; stepUp?: StepUpProof },
  now = new Date(),
): Promise<CreatedApiKey> {
  if (!ROLL_OVERLAPS_HOURS.includes(input.overlapHours)) {
    throw new AppError('invalid_request', `The overlap is one of ${ROLL_OVERLAPS_HOURS.join(', ')} hours.`, { param: 'overlapHours' });
  }
  const [current] = await getDb()
    .select({ mode: apiKeys.mode, name: apiKeys.name })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, input.keyId), eq(apiKeys.merchantId, input.merchantId)));
  // Checked again under the lock below; a key of another merchant is not_found there.
  if (current?.mode === 'live') await confirmProductionKey(input);
  const created = await getDb()
    .transaction(async (tx) => {
      const actor = await authorizeMember(tx, { ...input, permission: 'api_keys.manage' });
      const old = await liveKeyOfMerchant(tx, input.merchantId, input.keyId, now);
      if (old.mode === 'live' && current?.mode !== 'live')
        throw new AppError('not_found', `No active key ${input.keyId}.`, { param: 'keyId' });
      const created = await createApiKey({ merchantId: input.merchantId, mode: old.mode, kind: old.kind, name: old.name, tx });
      const expiresAt = new Date(now.getTime() + input.overlapHours * 3_600_000);
      await tx.update(apiKeys).set({ revokedAt: expiresAt, updatedAt: now }).where(eq(apiKeys.id, old.id));
      await recordAudit(tx, {
        actor,
        action: 'api_key.roll',
        targetId: old.id,
        mode: old.mode,
        data: { newKeyId: created.id, oldKeyExpiresAt: expiresAt.toISOString() },
        ip: input.ip,
      });
      return created;
    })
    .finally(() => forgetMerchantCredentials(input.merchantId));
  if (created.mode === 'live')
    await notifyNewProductionKey(input, `The production key “${current!.name}” was rolled: a new key replaces it.`);
  return created;
}
