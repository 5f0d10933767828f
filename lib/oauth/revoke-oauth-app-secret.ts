/**
 * Revoking a confidential app's secret from the OAuth tab (`oauth_apps.manage`): the app cannot use
 * its token endpoint until a new secret is rolled; tokens already issued stay valid (revoke the app to
 * end them: revoke-oauth-app.ts). The change commits with its audit entry.
 */
import 'server-only';
import { eq } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { oauthClients } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { appOfMerchant } from './app-of-merchant';

/** The secret stops working; the app cannot use its token endpoint until a new secret is rolled. */
export async function revokeOAuthAppSecret(input: MemberActor & { clientId: string }): Promise<void> {
  await getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'oauth_apps.manage' });
    const app = await appOfMerchant(tx, input.merchantId, input.clientId);
    if (!app.sealedSecret) throw new AppError('invalid_request', 'This app has no secret to revoke.', { param: 'clientId' });
    await tx.update(oauthClients).set({ sealedSecret: null, secretCreatedAt: null }).where(eq(oauthClients.id, app.id));
    await recordAudit(tx, { actor, action: 'oauth_app.revoke_secret', targetId: app.id, ip: input.ip });
  });
}
