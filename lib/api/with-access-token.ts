/**
 * Route wrapper for the in-app API: an OAuth access token (`Authorization: Bearer`) holding `scope`.
 * Any origin may call (the token is the credential, not a cookie), so every answer carries CORS.
 */
import { authenticateAccessToken, type AccessTokenContext } from '@/lib/oauth/authenticate-access-token';
import type { OAuthScope } from '@/lib/oauth/scopes';
import { ANY_ORIGIN } from './cors';
import { respondWith, type RouteParams } from './with-public';
import { refuseNulCharacters } from '@/lib/http/refuse-nul-characters';

type AccessTokenHandler = (request: Request, ctx: AccessTokenContext, params: Record<string, string>) => Promise<Response>;

export function withAccessToken(scope: OAuthScope, handler: AccessTokenHandler) {
  return (request: Request, route?: RouteParams): Promise<Response> =>
    respondWith(
      request,
      async () =>
        handler(request, await authenticateAccessToken(request, scope), refuseNulCharacters((await route?.params) ?? {}, { in: 'path' })),
      {
        corsOrigin: ANY_ORIGIN,
      },
    );
}
