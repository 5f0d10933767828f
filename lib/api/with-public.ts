/**
 * Route wrapper for routes without a key or a session (the id in the path is the capability, or the
 * data is public): gives the handler a request id and turns any error into the `{ data, error }`
 * envelope, exactly as withApiKey does. Routes never build the envelope themselves.
 */
import { randomUUID } from 'node:crypto';
import { withCorsHeaders } from './cors';
import { fail } from '@/lib/http/response-envelope';
import { refuseNulCharacters } from '@/lib/http/refuse-nul-characters';

export type RouteParams = { params: Promise<Record<string, string>> };

export interface RequestContext {
  requestId: string;
}

/** The caller's `x-request-id` (bounded), else a fresh one: logs and the 500 message quote it. */
function requestIdOf(request: Request): string {
  return request.headers.get('x-request-id')?.slice(0, 64) || randomUUID();
}

/** Runs `work`, answers its error as the envelope, and stamps the request id (and CORS, when asked). */
export async function respondWith(
  request: Request,
  work: (requestId: string) => Promise<Response>,
  options: { corsOrigin?: string } = {},
): Promise<Response> {
  const requestId = requestIdOf(request);
  let response: Response;
  try {
    response = await work(requestId);
  } catch (error) {
    response = fail(error, requestId);
  }
  response.headers.set('x-request-id', requestId);
  return options.corsOrigin === undefined ? response : withCorsHeaders(response, options.corsOrigin);
}

type PublicHandler = (request: Request, ctx: RequestContext, params: Record<string, string>) => Promise<Response>;

export function withPublic(handler: PublicHandler, options: { corsOrigin?: string } = {}) {
  return (request: Request, route?: RouteParams): Promise<Response> =>
    respondWith(
      request,
      async (requestId) => handler(request, { requestId }, refuseNulCharacters((await route?.params) ?? {}, { in: 'path' })),
      options,
    );
}
