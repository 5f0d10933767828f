import 'server-only';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchants, oauthClients } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { interactionOf } from './interaction-of';
import { knownScopes, type OAuthScope } from './scopes';

export interface AuthorizationStep {
  uid: string;
  prompt: 'login' | 'consent';
  /** Set on the consent step: the account that signed in. */
  accountId?: string;
  app: { clientId: string; name: string; logoUrl: string | null; merchantName: string; redirectOrigin: string | null };
  /** What the app asks for (consent step: what is not granted yet). */
  scopes: OAuthScope[];
  /** A device flow (a game or console), not a browser redirect. */
  isDevice: boolean;
}

/** The step a browser is at; `not_found` when the interaction expired or belongs to another browser. */
export async function loadAuthorizationStep(input: { uid: string; cookieHeader: string }): Promise<AuthorizationStep> {
  const { interaction } = await interactionOf(input.uid, input.cookieHeader);
  const clientId = String(interaction.params.client_id);
  const [row] = await getDb()
    .select({ name: oauthClients.name, logoUrl: oauthClients.logoUrl, merchantName: merchants.name })
    .from(oauthClients)
    .innerJoin(merchants, eq(merchants.id, oauthClients.merchantId))
    .where(eq(oauthClients.id, clientId));
  if (!row) throw new AppError('not_found', 'This app no longer exists.');
  const details = interaction.prompt.details as { missingOIDCScope?: string[] };
  const asked =
    interaction.prompt.name === 'consent' && details.missingOIDCScope
      ? details.missingOIDCScope.join(' ')
      : String(interaction.params.scope ?? '');
  const redirectUri = typeof interaction.params.redirect_uri === 'string' ? URL.parse(interaction.params.redirect_uri) : null;
  return {
    uid: interaction.uid,
    prompt: interaction.prompt.name === 'login' ? 'login' : 'consent',
    accountId: interaction.session?.accountId,
    app: { clientId, name: row.name, logoUrl: row.logoUrl, merchantName: row.merchantName, redirectOrigin: redirectUri?.origin ?? null },
    scopes: knownScopes(asked),
    isDevice: Boolean((interaction as { deviceCode?: string }).deviceCode),
  };
}
