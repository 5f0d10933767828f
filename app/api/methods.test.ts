/**
 * The API answers in its envelope everywhere: every route file under app/api answers the methods it
 * does not implement with 405 method_not_allowed and an Allow header, and any path no route serves
 * with 404 not_found. Walks the route files, so a new route that forgets `methodsNotAllowed` fails here.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { describe, expect, it } from 'vitest';
import { isMethodNotAllowedHandler } from '@/lib/api/methods';
import { callRoute } from '@/test/fixtures';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const API_DIR = path.resolve(import.meta.dirname);
const CATCH_ALL = path.join('[...path]', 'route.ts');
const routeFiles = readdirSync(API_DIR, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith(`${path.sep}route.ts`) && file !== CATCH_ALL)
  .sort();

type RouteModule = Record<
  string,
  ((request: Request, route: { params: Promise<Record<string, string>> }) => Promise<Response>) | undefined
>;

describe('405 method_not_allowed in the envelope, on every route', () => {
  it('finds the routes', () => {
    expect(routeFiles.length).toBeGreaterThanOrEqual(16);
    expect(routeFiles).toContain(path.join('createCharge', 'route.ts'));
  });

  it.each(routeFiles)('%s answers every method it does not implement with 405 and Allow', async (file) => {
    const route = (await import(path.join(API_DIR, file))) as RouteModule;
    const implemented = METHODS.filter((method) => route[method] && !isMethodNotAllowedHandler(route[method]));
    const refused = METHODS.filter((method) => !implemented.includes(method));
    expect(implemented.length).toBeGreaterThan(0);
    const expectedAllow = [...implemented, ...(implemented.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].sort().join(', ');
    for (const method of refused) {
      // Missing means Next.js would answer an empty 405 without Allow: add `methodsNotAllowed(…)` to the route.
      expect(route[method], `${file} exports no ${method}`).toBeDefined();
      const res = await callRoute(route[method]!, { method, path: `/api/${path.dirname(file)}` });
      expect(res.status, `${method} ${file}`).toBe(405);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.headers.get('allow')).toBe(expectedAllow);
      expect(res.json).toEqual({ data: null, error: { code: 'method_not_allowed', message: expect.stringContaining(method) } });
    }
  });
});

describe('404 not_found in the envelope for paths no route serves', () => {
  it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s /api/no-such-route', async (method) => {
    const route = (await import('./[...path]/route')) as unknown as RouteModule;
    const res = await callRoute(route[method]!, { method, path: '/api/no-such-route' });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ data: null, error: { code: 'not_found', message: expect.stringContaining('/api/no-such-route') } });
  });

  it("next-auth's routes answer unknown actions with the same 404, and known ones as before", async () => {
    const route = (await import('./auth/[...nextauth]/route')) as unknown as RouteModule;
    const unknown = await callRoute(route.GET!, { path: '/api/auth/not-an-action' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error?.code).toBe('not_found');
    const nested = await callRoute(route.POST!, { path: '/api/auth/session/extra', body: {} });
    expect(nested.status).toBe(404);
    const csrf = await route.GET!(new NextRequest('http://localhost:3999/api/auth/csrf'), { params: Promise.resolve({}) });
    expect(csrf.status).toBe(200);
    expect(await csrf.json()).toEqual({ csrfToken: expect.any(String) });
  });
});
