/**
 * The person's part of an authorization (the provider's "interactions"): sign in to Chargeport, then
 * consent to what the app asks. The page app/oauth/authorize/[uid] drives it; these functions read the
 * interaction the provider stored (bound to this browser by its signed interaction cookie) and store
 * the outcome, returning where the browser goes next (the provider's resume URL).
 */
import 'server-only';
import { eq } from 'drizzle-orm';
import { errors } from 'oidc-provider';
import { getDb } from '@/lib/db/client';
import { merchants, oauthClients } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { nodeRequest } from './node-bridge';
import { getProvider, interactionPath } from './provider';
import { knownScopes, type OAuthScope } from './scopes';
import { ServerResponse } from 'node:http';

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

type Interaction = Awaited<ReturnType<Awaited<ReturnType<typeof getProvider>>['interactionDetails']>>;

async function interactionOf(
  uid: string,
  cookieHeader: string,
): Promise<{ interaction: Interaction; provider: Awaited<ReturnType<typeof getProvider>> }> {
  const provider = await getProvider();
  const headers = new Headers({ cookie: cookieHeader });
  const req = nodeRequest({ method: 'GET', url: interactionPath(uid), headers });
  try {
    const interaction = await provider.interactionDetails(req, new ServerResponse(req));
    if (interaction.uid !== uid) throw new errors.SessionNotFound('interaction mismatch');
    return { interaction, provider };
  } catch (error) {
    if (error instanceof errors.SessionNotFound) {
      throw new AppError(
        'not_found',
        'This sign-in request has expired or was opened in another browser. Go back to the app and start again.',
      );
    }
    throw error;
  }
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

/** The signed-in Chargeport user is the account of this authorization. */
export async function completeLogin(input: { uid: string; cookieHeader: string; userId: string }): Promise<string> {
  const { interaction } = await interactionOf(input.uid, input.cookieHeader);
  interaction.result = { ...interaction.lastSubmission, login: { accountId: input.userId } };
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
  return interaction.returnTo;
}

/** The user allowed the app what it asked: the grant (one per account and app) gains those scopes. */
export async function approveConsent(input: { uid: string; cookieHeader: string; userId: string }): Promise<string> {
  const { interaction, provider } = await interactionOf(input.uid, input.cookieHeader);
  if (interaction.prompt.name !== 'consent') throw new AppError('invalid_request', 'Nothing to consent to at this step.');
  if (interaction.session?.accountId !== input.userId) {
    throw new AppError(
      'forbidden',
      'You are signed in as another account than the one this request was started with. Start again from the app.',
    );
  }
  const clientId = String(interaction.params.client_id);
  const grant = interaction.grantId
    ? ((await provider.Grant.find(interaction.grantId)) ?? new provider.Grant({ accountId: input.userId, clientId }))
    : new provider.Grant({ accountId: input.userId, clientId });
  const details = interaction.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  const grantId = await grant.save();
  interaction.result = { ...interaction.lastSubmission, consent: { grantId } };
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
  return interaction.returnTo;
}

/** The user said no: the app gets `access_denied`. */
export async function denyConsent(input: { uid: string; cookieHeader: string }): Promise<string> {
  const { interaction } = await interactionOf(input.uid, input.cookieHeader);
  interaction.result = { error: 'access_denied', error_description: 'The user did not allow access.' };
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
  return interaction.returnTo;
}
