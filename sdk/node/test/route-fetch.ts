/**
 * A `fetch` answering from the real route handlers in process (validation, keys, idempotency,
 * PostgreSQL), so @chargeport/node is tested against the real API without a server.
 */
import { GET as getCharge } from '@/app/api/charges/[chargeId]/route';
import { POST as cancelCharge } from '@/app/api/charges/[chargeId]/cancel/route';
import { GET as listRefunds, POST as createRefund } from '@/app/api/charges/[chargeId]/refunds/route';
import { GET as listCharges } from '@/app/api/charges/route';
import { POST as createCharge } from '@/app/api/createCharge/route';
import { GET as listEvents } from '@/app/api/events/route';
import { GET as streamEvents } from '@/app/api/events/stream/route';
import { POST as payTestCharge } from '@/app/api/test_helpers/charges/[chargeId]/pay/route';
import { POST as rotateSecret } from '@/app/api/webhook-endpoints/[endpointId]/rotate-secret/route';
import { DELETE as deleteEndpoint, GET as getEndpoint, PATCH as updateEndpoint } from '@/app/api/webhook-endpoints/[endpointId]/route';
import { GET as listEndpoints, POST as createEndpoint } from '@/app/api/webhook-endpoints/route';
import type { FetchLike } from '../src/index';

type Handler = (request: Request, route: { params: Promise<Record<string, string>> }) => Promise<Response>;

const ROUTES: [string, RegExp, Handler, string?][] = [
  ['POST', /^\/api\/createCharge$/, createCharge],
  ['GET', /^\/api\/charges$/, listCharges],
  ['GET', /^\/api\/charges\/([^/]+)$/, getCharge, 'chargeId'],
  ['POST', /^\/api\/charges\/([^/]+)\/cancel$/, cancelCharge, 'chargeId'],
  ['GET', /^\/api\/charges\/([^/]+)\/refunds$/, listRefunds, 'chargeId'],
  ['POST', /^\/api\/charges\/([^/]+)\/refunds$/, createRefund, 'chargeId'],
  ['GET', /^\/api\/events$/, listEvents],
  ['GET', /^\/api\/events\/stream$/, streamEvents],
  ['POST', /^\/api\/test_helpers\/charges\/([^/]+)\/pay$/, payTestCharge, 'chargeId'],
  ['GET', /^\/api\/webhook-endpoints$/, listEndpoints],
  ['POST', /^\/api\/webhook-endpoints$/, createEndpoint],
  ['GET', /^\/api\/webhook-endpoints\/([^/]+)$/, getEndpoint, 'endpointId'],
  ['PATCH', /^\/api\/webhook-endpoints\/([^/]+)$/, updateEndpoint, 'endpointId'],
  ['DELETE', /^\/api\/webhook-endpoints\/([^/]+)$/, deleteEndpoint, 'endpointId'],
  ['POST', /^\/api\/webhook-endpoints\/([^/]+)\/rotate-secret$/, rotateSecret, 'endpointId'],
];

export const TEST_BASE_URL = 'http://localhost:3999';

export function routeFetch(): { fetch: FetchLike; requests: Request[] } {
  const requests: Request[] = [];
  const fetch: FetchLike = async (url, init) => {
    const request = new Request(url, init);
    requests.push(request.clone());
    const { pathname } = new URL(request.url);
    for (const [method, pattern, handler, param] of ROUTES) {
      const match = pattern.exec(pathname);
      if (method !== request.method || !match) continue;
      return handler(request, { params: Promise.resolve(param ? { [param]: decodeURIComponent(match[1]!) } : {}) });
    }
    return new Response(`no route for ${request.method} ${pathname}`, { status: 404 });
  };
  return { fetch, requests };
}
