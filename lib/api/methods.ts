/**
 * The API answers in its envelope everywhere, wrong methods and unknown paths included. Next.js
 * would answer a method a route does not export with an empty 405 and no Allow header, and an
 * unknown path with the HTML 404 page. So each route file names the methods it does not implement:
 *
 *   export const { PUT, PATCH, DELETE } = methodsNotAllowed('GET', 'POST');
 *
 * and app/api/[...path]/route.ts answers every unknown /api path with `notFoundRoute`. A test walks
 * every route file (app/api/methods.test.ts) so a new route cannot forget its line.
 */
import { randomUUID } from 'node:crypto';
import { AppError } from '@/lib/errors';
import { fail } from '@/lib/http/response-envelope';

const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type RouteMethod = (typeof ROUTE_METHODS)[number];
type Handler = (request: Request) => Response;

/** Marks the handlers made here, so the route-walking test can tell them from real ones. */
const NOT_ALLOWED = Symbol.for('chargeport.methodNotAllowed');

/** Handlers for the methods a route does not implement: 405 method_not_allowed with `Allow`. */
export function methodsNotAllowed(...allowed: RouteMethod[]): Record<RouteMethod, Handler> {
  // Next.js answers HEAD from GET and OPTIONS by itself (or the route's CORS preflight).
  const allow = [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort().join(', ');
  const handler: Handler = (request) =>
    fail(
      new AppError(
        'method_not_allowed',
        `${request.method} is not allowed on ${new URL(request.url).pathname}: use ${allowed.join(' or ')}.`,
        {
          headers: { allow },
        },
      ),
      randomUUID(),
    );
  Object.defineProperty(handler, NOT_ALLOWED, { value: true });
  return Object.fromEntries(ROUTE_METHODS.map((method) => [method, handler])) as Record<RouteMethod, Handler>;
}

export function isMethodNotAllowedHandler(value: unknown): boolean {
  return typeof value === 'function' && (value as unknown as Record<symbol, unknown>)[NOT_ALLOWED] === true;
}

/** The answer to any path under /api that no route serves. */
export function notFoundRoute(request: Request): Response {
  const { pathname } = new URL(request.url);
  return fail(new AppError('not_found', `No API route ${pathname}: see the API reference at /docs/api.`), randomUUID());
}
