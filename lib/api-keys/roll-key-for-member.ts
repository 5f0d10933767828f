/**
 * The dashboard's API Keys tab: list, create, roll and revoke, as a member whose role allows it
 * (lib/merchants/permissions.ts), each action audited in its transaction.
 *
 *  - A key's plaintext is returned once, at creation or roll; only its hash is stored.
 *  - Live (production) keys need a verified merchant (createApiKey enforces it).
 *  - Roll: a new key with the same mode, kind and name; the old one keeps working for the overlap
 *    (none, 1 h, 24 h or 7 days: `revoked_at` set in the future) so deployments can switch without
 *    downtime, as Stripe's roll does.
 *  - The test key cannot be left without a working secret key: revoking the last one is refused
 *    (roll it instead), so the "test key always" promise holds.
 *  - Revoking a production key needs its name or "revoke" typed (revokeKeyForMember).
 *  - A new production key (created or rolled) needs the member's PIN or a passkey (step-up) and
 *    two-factor sign-in turned on, and every owner is e-mailed: a production key moves real money.
 */
import { and, eq, isNull, ne } from 'drizzle-orm';
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

/**
 * Revoking a production key stops a live integration at once, so it must be confirmed by typing the
 * key's name or "revoke", in any case (the dashboard's dialog sends it as `confirmation`).
 */
export async function revokeKeyForMember(input: MemberActor & { keyId: string; confirmation?: string }, now = new Date()): Promise<void> {
  await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'api_keys.manage' });
    const key = await liveKeyOfMerchant(tx, input.merchantId, input.keyId, now);
    const typed = input.confirmation?.trim().toLowerCase();
    if (key.mode === 'live' && typed !== key.name.toLowerCase() && typed !== 'revoke') {
      throw new AppError('invalid_request', `To revoke a production key, type its name (“${key.name}”) or "revoke".`, { param: 'confirm' });
    }
    if (key.kind === 'secret' && key.mode === 'test') {
      const others = await tx
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(
          and(
            eq(apiKeys.merchantId, input.merchantId),
            eq(apiKeys.mode, 'test'),
            eq(apiKeys.kind, 'secret'),
            ne(apiKeys.id, key.id),
            isNull(apiKeys.revokedAt),
          ),
        );
      if (others.length === 0)
        throw new AppError('invalid_request', 'This is your only test secret key: roll it instead of revoking it.', { param: 'keyId' });
    }
    await tx.update(apiKeys).set({ revokedAt: now, updatedAt: now }).where(eq(apiKeys.id, key.id));
    await recordAudit(tx, { actor, action: 'api_key.revoke', targetId: key.id, mode: key.mode, ip: input.ip });
  });
  // Other instances hear of it by NOTIFY (migration 0019); this one forgets now.
  forgetMerchantCredentials(input.merchantId);
}
