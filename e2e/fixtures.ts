/**
 * Playwright's `test` and `expect` for every journey, with one addition: every `/api/*` response a page of the
 * journey's browser context receives (the checkout's status reads, the on-ramp's quotes and orders, the web SDK's
 * calls) is checked against the OpenAPI document (sdk/openapi.json, as e2e/api.ts checks the merchant client's
 * own calls). A response off the document — an undeclared status, a missing required header, a body off its
 * schema — fails the journey at its end, naming the response. Paths and methods the document does not describe
 * (next-auth, CORS preflights, the session-and-PIN pay route) are not checked; event streams are checked by
 * status and content type only, as their body never ends.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test as base, type Response } from '@playwright/test';
import { openApiResponseValidator } from '@/test/openapi-responses';

export * from '@playwright/test';

const document = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../sdk/openapi.json'), 'utf8')) as {
  paths: Record<string, Record<string, unknown>>;
};
const openApi = openApiResponseValidator(document);

/** The problems of one response, or none when the document does not describe it. */
async function problemsOf(response: Response): Promise<string[]> {
  const url = new URL(response.url());
  if (!url.pathname.startsWith('/api/')) return [];
  const method = response.request().method();
  const template = openApi.templateOf(url.pathname);
  if (!template || !document.paths[template]?.[method.toLowerCase()]) return [];
  if (response.status() >= 300 && response.status() < 400) return [];
  // Set-Cookie lines arrive joined by newlines, which Headers refuses; the document declares no cookie.
  const { 'set-cookie': _cookies, ...headers } = await response.allHeaders();
  const contentType = headers['content-type'] ?? null;
  let body: unknown = undefined;
  if (contentType?.includes('json')) {
    try {
      body = await response.json();
    } catch {
      // The page went away before the body could be read: nothing left to check it against.
      return [];
    }
  }
  return openApi.problems({ method, path: url.pathname, status: response.status(), contentType, body, headers: new Headers(headers) });
}

export const test = base.extend<{ apiResponsesMatchTheDocument: void }>({
  apiResponsesMatchTheDocument: [
    async ({ context }, use) => {
      const found: string[] = [];
      const checks: Promise<void>[] = [];
      context.on('response', (response) => {
        checks.push(
          problemsOf(response).then(
            (problems) => void found.push(...problems),
            () => {},
          ),
        );
      });
      await use();
      await Promise.all(checks);
      if (found.length) throw new Error(`Responses the OpenAPI document does not describe:\n${found.join('\n')}`);
    },
    { auto: true },
  ],
});
