/**
 * The dashboard's OAuth tab: a merchant's apps for "Sign in with Chargeport". Each action is checked
 * against the member's role (`oauth_apps.manage`) and audited in its transaction.
 *
 *  - A confidential app's secret is shown once (at registration or roll) and stored sealed.
 *  - Rolling replaces the secret at once; revoking the secret leaves the app unable to authenticate
 *    until a new one is rolled (its tokens stay valid); revoking the app deletes its grants and every
 *    token, so each user's access ends at once, and the provider no longer knows its client id.
 */
import 'server-only';
import { and, count, eq, isNull } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { oauthClients, oidcPayloads } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { zodToAppError } from '@/lib/http/zod-to-app-error';
import { appOfMerchant } from './app-of-merchant';
import { newClientSecret, sealClientSecret } from './client-secret';
import { revokeGrantsWhere } from './grants';
import { registerOAuthAppSchema, type RegisterOAuthAppInput } from './schemas';

/** An app and, for a confidential one, its secret (shown once). */
export interface RegisteredApp {
  clientId: string;
  clientSecret?: string;
}

const MAX_APPS_PER_MERCHANT = 50;

export async function registerOAuthApp(input: MemberActor & { app: RegisterOAuthAppInput }): Promise<RegisteredApp> {
  const parsed = registerOAuthAppSchema.safeParse(input.app);
  if (!parsed.success) throw zodToAppError(parsed.error);
  const app = parsed.data;
  return getDb().transaction(async (tx) => {
    const actor = await authorizeMember(tx, { ...input, permission: 'oauth_apps.manage' });
    const [{ value: existing } = { value: 0 }] = await tx
      .select({ value: count() })
      .from(oauthClients)
      .where(and(eq(oauthClients.merchantId, input.merchantId), isNull(oauthClients.revokedAt)));
    if (existing >= MAX_APPS_PER_MERCHANT)
      throw new AppError('invalid_request', `At most ${MAX_APPS_PER_MERCHANT} apps per merchant: revoke one first.`);
    const clientId = newId('oauthApp');
    const secret = app.clientType === 'confidential' ? newClientSecret() : undefined;
    await tx.insert(oauthClients).values({
      id: clientId,
      merchantId: input.merchantId,
      name: app.name,
      logoUrl: app.logoUrl ?? null,
      redirectUris: [...new Set(app.redirectUris)],
      clientType: app.clientType,
      sealedSecret: secret ? sealClientSecret(clientId, secret) : null,
      secretCreatedAt: secret ? new Date() : null,
    });
    await recordAudit(tx, {
      actor,
      action: 'oauth_app.create',
      targetId: clientId,
      data: { name: app.name, clientType: app.clientType },
      ip: input.ip,
    });
    return { clientId, ...(secret ? { clientSecret: secret } : {}) };
  });
}

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
