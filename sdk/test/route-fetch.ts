/**
 * A `fetch` for the SDK that answers from the real route handlers, in process: it builds the
 * `Request` exactly as the network would deliver it and dispatches by method and path, so the SDK
 * is tested against the real API (validation, keys, idempotency, PostgreSQL) without a server.
 */
import { GET as getChargeRoute } from '@/app/api/charges/[chargeId]/route';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import type { FetchLike } from '../src/index';

export const TEST_BASE_URL = 'http://localhost:3999';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Headers;
  body: string;
}

/** The route-backed fetch, plus every request it saw (for header assertions). */
export function routeFetch(): { fetch: FetchLike; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fetch: FetchLike = async (url, init) => {
    const request = new Request(url, init);
    const { pathname } = new URL(request.url);
    requests.push({ method: request.method, path: pathname, headers: request.headers, body: await request.clone().text() });

    if (request.method === 'POST' && pathname === '/api/createCharge') {
      return createChargeRoute(request, { params: Promise.resolve({}) });
    }
    const chargePath = /^\/api\/charges\/([^/]+)$/.exec(pathname);
    if (request.method === 'GET' && chargePath) {
      return getChargeRoute(request, { params: Promise.resolve({ chargeId: decodeURIComponent(chargePath[1]!) }) });
    }
    return new Response(`no route for ${request.method} ${pathname}`, { status: 404, headers: { 'content-type': 'text/plain' } });
  };
  return { fetch, requests };
}
