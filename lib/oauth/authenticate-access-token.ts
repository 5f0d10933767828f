/**
 * The in-app API's authentication (`/api/oauth/*`): an access token issued by the provider, sent as
 * `Authorization: Bearer …`, of an app that is not revoked, carrying the scope the route needs.
 * The token decides everything: the user, the app, and so the one merchant whose charges it may pay.
 */
import 'server-only';
import { and, eq, isNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { oauthClients } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { getProvider } from './provider';
import { knownScopes, type OAuthScope } from './scopes';

export interface AccessTokenContext {
  userId: string;
  clientId: string;
  clientName: string;
  merchantId: string;
  scopes: OAuthScope[];
}

const BEARER = /^Bearer\s+([A-Za-z0-9._~+/-]+=*)$/i;

export async function authenticateAccessToken(request: Request, requiredScope: OAuthScope): Promise<AccessTokenContext> {
  const match = BEARER.exec(request.headers.get('authorization')?.trim() ?? '');
  if (!match) {
    throw new AppError('invalid_access_token', 'Send the access token of "Sign in with Chargeport" as `Authorization: Bearer <token>`.', {
      headers: { 'www-authenticate': 'Bearer realm="chargeport"' },
    });
  }
  const provider = await getProvider();
  const token = await provider.AccessToken.find(match[1]!);
  if (!token || token.isExpired || !token.accountId || !token.clientId) {
    throw new AppError('invalid_access_token', 'The access token is unknown, expired or revoked: refresh it or sign in again.', {
      headers: { 'www-authenticate': 'Bearer realm="chargeport", error="invalid_token"' },
    });
  }
  const [client] = await getDb()
    .select({ id: oauthClients.id, name: oauthClients.name, merchantId: oauthClients.merchantId })
    .from(oauthClients)
    .where(and(eq(oauthClients.id, token.clientId), isNull(oauthClients.revokedAt)));
  if (!client) throw new AppError('invalid_access_token', 'The app of this access token was revoked by its developer.');
  const scopes = knownScopes(token.scope);
  if (!scopes.includes(requiredScope)) {
    throw new AppError('insufficient_scope', `This needs the \`${requiredScope}\` scope: sign the user in again asking for it.`, {
      headers: { 'www-authenticate': `Bearer realm="chargeport", error="insufficient_scope", scope="${requiredScope}"` },
    });
  }
  return { userId: token.accountId, clientId: client.id, clientName: client.name, merchantId: client.merchantId, scopes };
}
