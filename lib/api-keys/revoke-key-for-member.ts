/**
 * Revoking a key from the API Keys tab (`api_keys.manage`): it stops working at once, in every
 * instance (the credential cache is told by NOTIFY, this one forgets now). The revocation commits with
 * its audit entry.
 *
 *  - A production key needs its name or "revoke" typed: it stops a live integration.
 *  - The test mode keeps a working secret key: revoking the last one is refused (roll it instead),
 *    so the "test key always" promise holds.
 */
import { and, eq, isNull, ne } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { apiKeys } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { forgetMerchantCredentials } from '@/lib/merchants/credential-cache';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { liveKeyOfMerchant } from './live-key-of-merchant';

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
