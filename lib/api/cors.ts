/**
 * CORS for the routes a browser may call with a publishable key (createCharge, GET a charge): the
 * merchant's page calls them from its own origin with the x-api-key header (or an OAuth access token as
 * Authorization: Bearer, /api/oauth/*), so any origin is allowed.
 * No cookies are involved (no Allow-Credentials): the key in the header is the only credential, and
 * a publishable key can only create and read charges that pay its merchant.
 */

/** Sent on every answer of such a route (so a browser can read errors too) and on the preflight. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, x-api-key, idempotency-key, x-request-id, authorization',
  'access-control-expose-headers': 'x-request-id, retry-after, idempotent-replayed',
  // Browsers cap this (Chrome at 2 hours); 10 minutes keeps a changed policy from lingering.
  'access-control-max-age': '600',
};

/** The OPTIONS handler of such a route: `export const OPTIONS = corsPreflight;`. */
export function corsPreflight(): Response {
  return new Response(null, { status: 204, headers: CORS_HEADERS });
}

/** Adds the CORS headers to an answer (in place) and returns it. */
export function withCorsHeaders(response: Response): Response {
  for (const [name, value] of Object.entries(CORS_HEADERS)) response.headers.set(name, value);
  return response;
}
