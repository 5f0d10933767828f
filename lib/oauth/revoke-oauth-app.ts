/**
 * Revoking an app from the OAuth tab (`oauth_apps.manage`): the provider no longer knows its client id,
 * and every user's grant and token of it is deleted, so each user's access ends at once. The
 * revocation commits with its audit entry; the grants and tokens go right after (grants.ts).
 */
import 'server-only';
import { eq } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { oauthClients, oidcPayloads } from '@/lib/db/schema';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { appOfMerchant } from './app-of-merchant';
import { revokeGrantsWhere } from './grants';

/** The app is gone: the provider no longer knows it, and every user's grant and token of it is deleted. */
export async function revokeOAuthApp(input: MemberActor & { clientId: string }): Promise<void> {
  await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'oauth_apps.manage' });
    const app = await appOfMerchant(tx, input.merchantId, input.clientId);
    await tx.update(oauthClients).set({ revokedAt: new Date(), sealedSecret: null }).where(eq(oauthClients.id, app.id));
    await recordAudit(tx, { actor, action: 'oauth_app.revoke', targetId: app.id, data: { name: app.name }, ip: input.ip });
  });
  await revokeGrantsWhere(eq(oidcPayloads.clientId, input.clientId));
  // Tokens of grants already gone (or never granted: device codes in flight) go too.
  await getDb().delete(oidcPayloads).where(eq(oidcPayloads.clientId, input.clientId));
}
