/**
 * Route wrapper for merchant API calls: authenticates x-api-key, applies the per-key rate limit,
 * checks what the key's kind may do, builds the ApiContext, and turns any error into the envelope.
 * Publishable keys (public by design) are also held to their allowed origins and a per-IP limit
 * (lib/api-keys/publishable-origins.ts, publishable-ip-limit.ts); CORS grants only an allowed origin.
 * Every answer carries the API version it was made under (Chargeport-Version, lib/api/resolve-api-version.ts)
 * and, once the key is known and counted, the key's budget (RateLimit-Limit/-Remaining/-Reset).
 */
import { randomUUID } from 'node:crypto';
import { authenticateApiKey } from '@/lib/api-keys/authenticate-api-key';
import { AppError } from '@/lib/errors';
import type { ApiContext } from '@/lib/context';
import { withCorsHeaders } from './cors';
import { assertOriginAllowed } from '@/lib/api-keys/publishable-origins';
import { clientIpFrom } from '@/lib/http/client-ip';
import { consumePublishableIpLimit } from '@/lib/rate-limit/publishable-ip-limit';
import { consumeApiRateLimit, rateLimitHeaders } from '@/lib/rate-limit/api-rate-limit';
import { fail } from '@/lib/http/response-envelope';
import { refuseNulCharacters } from '@/lib/http/refuse-nul-characters';
import { noteRequestMerchant } from '@/lib/http/record-requests';
import { API_VERSION_HEADER, CURRENT_API_VERSION, requestedApiVersion, resolveApiVersion } from './resolve-api-version';

type RouteParams = { params: Promise<Record<string, string>> };
type ApiHandler = (request: Request, ctx: ApiContext, params: Record<string, string>) => Promise<Response>;

export interface WithApiKeyOptions {
  /**
   * Publishable keys (safe in a browser) may only call routes that allow them. Such routes answer
   * CORS (lib/api/cors.ts) on every response; they also export `OPTIONS = corsPreflight`.
   */
  allowPublishable?: boolean;
}

export function withApiKey(handler: ApiHandler, options: WithApiKeyOptions = {}) {
  return async (request: Request, route?: RouteParams): Promise<Response> => {
    // Read once: each `request.headers` of a route's request goes through Next.js's tracking proxy.
    const headers = request.headers;
    const requestId = headers.get('x-request-id')?.slice(0, 64) || randomUUID();
    let response: Response;
    let corsOrigin: string | null = null;
    // Until the key is known: the version asked for, else the current one.
    let version: string = CURRENT_API_VERSION;
    let rateLimit: Record<string, string> = {};
    try {
      const requested = requestedApiVersion(headers);
      version = requested ?? version;
      const { merchant, apiKey } = await authenticateApiKey(headers.get('x-api-key'));
      noteRequestMerchant(merchant.id);
      // The key's version without a write: a request refused below changes nothing.
      version = await resolveApiVersion({ requested, apiKey, pin: false });
      if (apiKey.kind === 'publishable' && !options.allowPublishable) {
        throw new AppError('key_not_permitted', 'Publishable keys can only create and read charges. Use a secret key from your server.');
      }
      if (apiKey.kind === 'publishable') {
        const origin = headers.get('origin');
        assertOriginAllowed(apiKey, origin);
        corsOrigin = origin;
        await consumePublishableIpLimit(apiKey.id, clientIpFrom(headers));
      }
      // The first request the key may make pins it (a 429 included: the limit has counted it).
      version = await resolveApiVersion({ requested, apiKey });
      rateLimit = rateLimitHeaders(await consumeApiRateLimit(apiKey.id));
      const ctx: ApiContext = { merchant, apiKey, actor: `api_key:${apiKey.id}`, requestId };
      response = await handler(request, ctx, refuseNulCharacters((await route?.params) ?? {}, { in: 'path' }));
    } catch (error) {
      response = fail(error, requestId);
    }
    response.headers.set('x-request-id', requestId);
    response.headers.set(API_VERSION_HEADER, version);
    for (const [name, value] of Object.entries(rateLimit)) response.headers.set(name, value);
    return options.allowPublishable ? withCorsHeaders(response, corsOrigin) : response;
  };
}
