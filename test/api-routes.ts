/**
 * The API's route table as Next.js builds it: every app/api/**\/route.ts and the HTTP methods it
 * implements (not the `methodsNotAllowed` placeholders, not OPTIONS preflights, not HEAD). Used by
 * app/api/route-table.test.ts (every route is in the OpenAPI document and docs/api.md's endpoint table)
 * and by the response validation of `callRoute` (test/openapi-validation.ts), which finds the route
 * a handler serves by identity.
 *
 * The routes that are deliberately left out of the document or the table are listed in
 * `UNDOCUMENTED_ROUTES`, each with its reason.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { isMethodNotAllowedHandler } from '@/lib/api/methods';

export const API_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ApiMethod = (typeof API_METHODS)[number];

const API_DIR = path.resolve(import.meta.dirname, '../app/api');
/** The catch-all that answers unknown /api paths with 404 not_found: not a route of its own. */
const CATCH_ALL_FILE = path.join('[...path]', 'route.ts');

export interface ApiRoute {
  /** Relative to app/api, e.g. `charges/[chargeId]/refunds/route.ts`. */
  file: string;
  /** The OpenAPI form: `/api/charges/{chargeId}/refunds` (a catch-all segment `[...x]` becomes `{...x}`). */
  path: string;
  /** The methods the route implements. */
  methods: ApiMethod[];
  module: Record<string, unknown>;
}

/** `charges/[chargeId]/route.ts` → `/api/charges/{chargeId}`. */
function routePathOf(file: string): string {
  const dir = path.dirname(file).split(path.sep).join('/');
  const segments = dir === '.' ? [] : dir.split('/');
  return ['/api', ...segments.map((segment) => segment.replace(/^\[(.+)\]$/, '{$1}'))].join('/');
}

function apiRouteFiles(): string[] {
  return readdirSync(API_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(`${path.sep}route.ts`) && file !== CATCH_ALL_FILE)
    .sort();
}

const modules = new Map<string, Promise<ApiRoute>>();

function loadApiRoute(file: string): Promise<ApiRoute> {
  let route = modules.get(file);
  if (!route) {
    route = (async () => {
      const exports = (await import(path.join(API_DIR, file))) as Record<string, unknown>;
      const methods = API_METHODS.filter((method) => typeof exports[method] === 'function' && !isMethodNotAllowedHandler(exports[method]));
      return { file, path: routePathOf(file), methods, module: exports };
    })();
    modules.set(file, route);
  }
  return route;
}

/** Imports every route module once (per test file: vitest's module graph), so handlers compare by identity. */
export function loadApiRoutes(): Promise<ApiRoute[]> {
  return Promise.all(apiRouteFiles().map(loadApiRoute));
}

/**
 * The route files this test file has already loaded, from vitest's own module cache. callRoute only ever
 * gets a handler from a module the test imported, so these are the only candidates; importing the others
 * would cost seconds per test file and run their side effects (hooks they register) in tests that never
 * asked for them.
 */
function loadedRouteFiles(): string[] {
  const worker = (globalThis as { __vitest_worker__?: { evaluatedModules?: { fileToModulesMap?: Map<string, unknown> } } })
    .__vitest_worker__;
  const loaded = worker?.evaluatedModules?.fileToModulesMap;
  if (!loaded)
    throw new Error("routeOfHandler: vitest's module cache (__vitest_worker__.evaluatedModules) is not there: update test/api-routes.ts");
  return apiRouteFiles().filter((file) => loaded.has(path.join(API_DIR, file)));
}

const found = new WeakMap<object, { route: ApiRoute; method: ApiMethod } | null>();

/** The route and method a handler is the export of, or null for a handler no route exports (a test's own). */
export async function routeOfHandler(handler: object): Promise<{ route: ApiRoute; method: ApiMethod } | null> {
  if (found.has(handler)) return found.get(handler)!;
  let result: { route: ApiRoute; method: ApiMethod } | null = null;
  for (const file of loadedRouteFiles()) {
    const route = await loadApiRoute(file);
    const method = route.methods.find((name) => route.module[name] === handler);
    if (method) {
      result = { route, method };
      break;
    }
  }
  // A miss is not cached: the test may import the route that exports it later.
  if (result) found.set(handler, result);
  return result;
}

/**
 * Routes that are not in the OpenAPI document (`openapi`) or not in docs/api.md's endpoint table
 * (`table`), and why. Anything else the route table serves must be in both.
 */
export const UNDOCUMENTED_ROUTES: Record<string, { openapi?: string; table?: string }> = {
  '/api/auth/{...nextauth}': {
    openapi: "next-auth's own endpoints (sign-in, callbacks, session, CSRF) for the dashboard and wallet pages, not the merchant API",
    table: "next-auth's own endpoints, covered in docs/security.md, not the merchant API",
  },
  '/api/charges/{chargeId}/pay': {
    openapi: "the hosted checkout's pay-from-balance button: a consumer's session cookie and PIN, never an API key",
  },
};
