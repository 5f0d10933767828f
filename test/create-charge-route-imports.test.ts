/**
 * Tests outside the route's own folder make charges with createTestCharge (test/fixtures.ts), not through
 * POST /api/createCharge (issue 28, point 5): lib/ sits below app/, so a domain test that needs a charge must
 * not depend on the HTTP layer. Scoped to the createCharge route: other lib/ tests still call the routes that
 * are their subject (cancel, refunds, webhook endpoints, …).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Files allowed to import the route, each with why. */
const ALLOWED: Record<string, string> = {
  'lib/api/cors.test.ts':
    "its subject is the CORS headers of the route's answers (lib/api/cors.ts wraps them): preflight, allowed and refused origins",
};

/** An import (static, dynamic or re-export) of app/api/createCharge/route, by the @/ alias or a relative path. */
const ROUTE_IMPORT = /\b(?:from|import)\s*\(?\s*['"](?:@\/|(?:\.\.?\/)+)app\/api\/createCharge\/route(?:\.ts)?['"]/;

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : walk(full);
    return /\.(m?ts|tsx)$/.test(entry.name) ? [full] : [];
  });
}

describe('tests outside app/api/createCharge make charges without the route', () => {
  it('the pattern finds the alias, relative and dynamic imports, and nothing else', () => {
    expect(ROUTE_IMPORT.test("import { POST as createChargeRoute } from '@/app/api/createCharge/route';")).toBe(true);
    expect(ROUTE_IMPORT.test("import { POST } from '../../app/api/createCharge/route';")).toBe(true);
    expect(ROUTE_IMPORT.test("const { POST } = await import('@/app/api/createCharge/route');")).toBe(true);
    expect(ROUTE_IMPORT.test("import { POST } from '@/app/api/charges/[chargeId]/cancel/route';")).toBe(false);
    expect(ROUTE_IMPORT.test("import { createCharge } from '@/lib/charges/create-charge';")).toBe(false);
  });

  it('no file under lib/ or test/ (but this one, for its examples) imports the createCharge route, but those allowed', () => {
    const importing = [...walk(path.join(ROOT, 'lib')), ...walk(path.join(ROOT, 'test'))]
      .filter((file) => file !== import.meta.filename && ROUTE_IMPORT.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(ROOT, file).split(path.sep).join('/'))
      .sort();
    expect(importing, 'use createTestCharge from @/test/fixtures to make a charge').toEqual(Object.keys(ALLOWED).sort());
  });
});
