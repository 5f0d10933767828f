/**
 * CORS for the routes a browser may call with a publishable key (createCharge, GET a charge): the
 * merchant's page calls them from its own origin with the x-api-key header.
 *
 *  - The preflight carries no key, so it cannot know the key's allowed origins: it answers for the
 *    origin that asks (Vary: Origin). The request itself is then checked on the server (withApiKey:
 *    a publishable key used from an origin it does not allow → 403 origin_not_allowed, nothing done).
 *  - An answer grants its origin only when the key allows that origin; otherwise the browser cannot
 *    read it (errors before the key is known included).
 *  - No cookies are involved (no Allow-Credentials): the key in the header is the only credential.
 *  - The allowed request headers are the ones @chargeport/web sends, `Chargeport-Client: web/<version>`
 *    and `Chargeport-Version` included (sdk/test/client-identity.test.ts fails when the SDK sends one the
 *    preflight refuses); the version and RateLimit-* headers are exposed to the page.
 *  - The in-app routes (/api/oauth/*) take an OAuth access token (Authorization: Bearer) instead: the
 *    token is the credential, so their answers grant any origin (`*`).
 */

/** Sent with every grant and on the preflight. */
const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers':
    'content-type, x-api-key, idempotency-key, x-request-id, authorization, chargeport-client, chargeport-version',
  'access-control-expose-headers': [
    'x-request-id',
    'retry-after',
    'idempotent-replayed',
    'chargeport-version',
    'ratelimit-limit',
    'ratelimit-remaining',
    'ratelimit-reset',
  ].join(', '),
  // Browsers cap this (Chrome at 2 hours); 10 minutes keeps a changed policy from lingering.
  'access-control-max-age': '600',
};

/** The OPTIONS handler of such a route: `export const OPTIONS = corsPreflight;`. */
export function corsPreflight(request?: Request): Response {
  const origin = request?.headers.get('origin');
  const headers = new Headers(CORS_HEADERS);
  headers.set('access-control-allow-origin', origin ?? '*');
  headers.set('vary', 'Origin');
  return new Response(null, { status: 204, headers });
}

/** For answers whose credential is a bearer token, not a key with allowed origins (the in-app routes). */
export const ANY_ORIGIN = '*';

/** Grants `origin` (an origin the request's publishable key allows) on the answer, in place; null grants nothing. */
export function withCorsHeaders(response: Response, origin: string | null): Response {
  response.headers.append('vary', 'Origin');
  if (origin === null) return response;
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  response.headers.set('access-control-allow-origin', origin);
  return response;
}
