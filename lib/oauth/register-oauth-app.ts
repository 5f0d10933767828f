/**
 * Registering an app for "Sign in with Chargeport" from the OAuth tab (`oauth_apps.manage`): the form
 * is checked by its schema (schemas.ts), a merchant has at most 50 live apps, and a confidential app's
 * secret is shown once and stored sealed (client-secret.ts). The app commits with its audit entry.
 * The OAuth tab's other verbs: list-oauth-apps, list-oauth-app-users, roll-oauth-app-secret,
 * revoke-oauth-app-secret, revoke-oauth-app.
 */
import 'server-only';
import { and, count, eq, isNull } from 'drizzle-orm';
import { recordAudit } from '@/lib/audit/record-audit';
import { getDb } from '@/lib/db/client';
import { oauthClients } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';
import { zodToAppError } from '@/lib/http/zod-to-app-error';
import { newClientSecret, sealClientSecret } from './client-secret';
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
