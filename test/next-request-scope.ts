/**
 * A stand-in for Next's per-request scope (`next/headers`) in vitest, where no request is running:
 * `headers()` answers the test's headers and `cookies()` a jar next-auth can read and set, so route
 * wrappers and server actions run their real session code. Use with
 * `vi.mock('next/headers', async () => (await import('@/test/next-request-scope')).nextHeadersMock(scope))`
 * and a `scope` made in `vi.hoisted` (mocks are hoisted above the imports).
 */
export interface RequestScope {
  headers: Headers;
  cookies: Map<string, string>;
}

export function nextHeadersMock(scope: RequestScope) {
  const jar = {
    get: (name: string) => (scope.cookies.has(name) ? { name, value: scope.cookies.get(name)! } : undefined),
    getAll: () => [...scope.cookies].map(([name, value]) => ({ name, value })),
    has: (name: string) => scope.cookies.has(name),
    set: (name: string, value: string) => {
      scope.cookies.set(name, value);
    },
    delete: (name: string) => {
      scope.cookies.delete(name);
    },
    toString: () => [...scope.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
  };
  return { headers: async () => scope.headers, cookies: async () => jar };
}
