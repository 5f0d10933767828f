/**
 * Rolling a confidential app's secret from the OAuth tab (`oauth_apps.manage`): the new secret is shown
 * once and stored sealed (client-secret.ts); the old one stops working at once. A public app has none.
 * The new secret commits with its audit entry.
 */
import 'server-only';
import { eq } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { oauthClients } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { appOfMerchant } from './app-of-merchant';
import { newClientSecret, sealClientSecret } from './client-secret';
import type { RegisteredApp } from './register-oauth-app';

/** A new secret for a confidential app; the old one stops working at once. */
export async function rollOAuthAppSecret(input: MemberActor & { clientId: string }): Promise<RegisteredApp> {
  return getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'oauth_apps.manage' });
    const app = await appOfMerchant(tx, input.merchantId, input.clientId);
    if (app.clientType !== 'confidential')
      throw new AppError('invalid_request', 'A public app has no secret: it signs users in with PKCE alone.', { param: 'clientId' });
    const secret = newClientSecret();
    await tx
      .update(oauthClients)
      .set({ sealedSecret: sealClientSecret(app.id, secret), secretCreatedAt: new Date() })
      .where(eq(oauthClients.id, app.id));
    await recordAudit(tx, { actor, action: 'oauth_app.roll_secret', targetId: app.id, ip: input.ip });
    return { clientId: app.id, clientSecret: secret };
  });
}
