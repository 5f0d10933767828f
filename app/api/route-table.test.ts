/**
 * Docs that cannot drift: every route+method the route table serves (app/api/**\/route.ts) is in the
 * OpenAPI document (lib/api/openapi.ts) and in docs/api.md's endpoint table, and every path either of
 * them lists is served. The exceptions are test/api-routes.ts's UNDOCUMENTED_ROUTES, each with a reason.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { API_METHODS, UNDOCUMENTED_ROUTES, loadApiRoutes } from '@/test/api-routes';

const DOCS_API = path.resolve(import.meta.dirname, '../../docs/api.md');

/** `/api/webhook-endpoints/{id}` and `/api/webhook-endpoints/{endpointId}` are the same route. */
const shape = (routePath: string) => routePath.replace(/\{[^}]+\}/g, '{}');
const key = (method: string, routePath: string) => `${method.toUpperCase()} ${shape(routePath)}`;

/**
 * The first table under "## API reference" whose header starts with "Method and path". A cell lists
 * one or more `METHOD[/METHOD…] /path` in backticks; a backticked path without a method takes the
 * previous one (`GET /api/health`, `/api/health/ready`).
 */
function endpointTableOf(markdown: string): Set<string> {
  const section = markdown.split(/^## API reference$/m)[1]?.split(/^## /m)[0] ?? '';
  const lines = section.split('\n');
  const start = lines.findIndex((line) => /^\|\s*Method and path\s*\|/.test(line));
  if (start < 0) throw new Error('docs/api.md: no endpoint table ("| Method and path |") under "## API reference"');
  const entries = new Set<string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cell = line.split('|')[1] ?? '';
    let methods: string[] = [];
    for (const [, code] of cell.matchAll(/`([^`]+)`/g)) {
      const match = /^(?:([A-Z/]+)\s+)?(\/api\/\S*)$/.exec(code!.trim());
      if (!match) throw new Error(`docs/api.md endpoint table: cannot read \`${code}\` (write \`METHOD /api/path\`)`);
      if (match[1]) methods = match[1].split('/');
      if (!methods.length) throw new Error(`docs/api.md endpoint table: \`${code}\` has no method before it`);
      for (const method of methods) entries.add(key(method, match[2]!));
    }
  }
  return entries;
}

function documentOperations(): Set<string> {
  const document = buildOpenApiDocument('http://localhost:3999');
  return new Set(
    Object.entries(document.paths ?? {}).flatMap(([routePath, item]) =>
      Object.keys(item ?? {})
        .filter((method) => (API_METHODS as readonly string[]).includes(method.toUpperCase()))
        .map((method) => key(method, routePath)),
    ),
  );
}

describe('the route table, the OpenAPI document and docs/api.md agree', async () => {
  const routes = await loadApiRoutes();
  const served = routes.flatMap((route) => route.methods.map((method) => ({ route, method, key: key(method, route.path) })));
  const inDocument = documentOperations();
  const inTable = endpointTableOf(readFileSync(DOCS_API, 'utf8'));

  it('finds the routes, the operations and the table rows', () => {
    expect(routes.length).toBeGreaterThanOrEqual(25);
    expect(served.map((entry) => entry.key)).toContain('POST /api/createCharge');
    expect(inDocument).toContain('GET /api/charges/{}');
    expect(inTable).toContain('DELETE /api/webhook-endpoints/{}');
    expect(inTable).toContain('GET /api/health/live');
  });

  it('every allow-listed route exists and gives a reason', () => {
    const paths = new Set(routes.map((route) => route.path));
    for (const [routePath, reasons] of Object.entries(UNDOCUMENTED_ROUTES)) {
      expect(paths, `UNDOCUMENTED_ROUTES lists ${routePath}, which no route serves: remove it`).toContain(routePath);
      expect(reasons.openapi ?? reasons.table, routePath).toBeTruthy();
    }
  });

  it.each(served.map((entry) => [entry.key, entry] as const))('%s is in the OpenAPI document and docs/api.md', (_, entry) => {
    const allowed = UNDOCUMENTED_ROUTES[entry.route.path];
    if (!allowed?.openapi) {
      expect(
        inDocument.has(entry.key),
        `${entry.key} (app/api/${entry.route.file}) is not in the OpenAPI document: register it in lib/api/openapi/register-*-paths.ts`,
      ).toBe(true);
    }
    if (!allowed?.table) {
      expect(inTable.has(entry.key), `${entry.key} (app/api/${entry.route.file}) is not in docs/api.md's endpoint table: add a row`).toBe(
        true,
      );
    }
  });

  it('every operation of the document is served by a route', () => {
    const servedKeys = new Set(served.map((entry) => entry.key));
    expect(
      [...inDocument].filter((operation) => !servedKeys.has(operation)),
      'in the OpenAPI document, but no route serves them',
    ).toEqual([]);
  });

  it('every row of the endpoint table is served by a route', () => {
    const servedKeys = new Set(served.map((entry) => entry.key));
    expect(
      [...inTable].filter((row) => !servedKeys.has(row)),
      "in docs/api.md's endpoint table, but no route serves them",
    ).toEqual([]);
  });

  it('the table reader understands the forms the table uses', () => {
    const table = endpointTableOf(
      [
        '## API reference',
        '| Method and path | Key | What |',
        '| --- | --- | --- |',
        '| `GET /api/a`, `GET/PATCH /api/a/{id}` | secret | x |',
        '| `GET /api/h`, `/api/h/ready` | none | y |',
        '',
        '## Next',
        '| Method and path | Key | What |',
        '| --- | --- | --- |',
        '| `GET /api/not-this-one` | none | z |',
      ].join('\n'),
    );
    expect([...table].sort()).toEqual(['GET /api/a', 'GET /api/a/{}', 'GET /api/h', 'GET /api/h/ready', 'PATCH /api/a/{}']);
  });
});
