/**
 * The player pages' stylesheet (app/(player)/player.css, ADR 0031) is Tailwind over a list of `@source` folders, not
 * the whole project: a class in a file outside them is silently missing from the checkout or the on-ramp. This
 * follows the imports of every page under app/(player) (and the global not-found page, which uses the same sheet)
 * and fails for any file they render that carries classes outside those sources.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const SHEET = path.join(ROOT, 'app/(player)/player.css');

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walk(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** The file an import names (the @/ alias or a relative path), or null for a package. */
function resolveImport(from: string, specifier: string): string | null {
  const base = specifier.startsWith('@/')
    ? path.join(ROOT, specifier.slice(2))
    : specifier.startsWith('.')
      ? path.join(path.dirname(from), specifier)
      : null;
  if (!base) return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Every source file reachable by imports (static, dynamic, re-exports) from `entries`. */
function reachable(entries: string[]): Set<string> {
  const seen = new Set(entries);
  const queue = [...entries];
  for (let file = queue.shift(); file; file = queue.shift()) {
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport\s*\(?)\s*['"]([^'"]+)['"]/g)) {
      const imported = resolveImport(file, match[1]!);
      if (imported && !seen.has(imported)) {
        seen.add(imported);
        queue.push(imported);
      }
    }
  }
  return seen;
}

/** The folders and files the sheet's `@source` lines name, absolute. */
function sheetSources(): string[] {
  return [...readFileSync(SHEET, 'utf8').matchAll(/^@source\s+'([^']+)';/gm)].map((match) => path.resolve(path.dirname(SHEET), match[1]!));
}

const carriesClasses = (file: string) => /\bclassName=/.test(readFileSync(file, 'utf8'));
const covered = (file: string, sources: string[]) => sources.some((source) => file === source || file.startsWith(source + path.sep));

describe('the player pages’ stylesheet', () => {
  it('is built only from its sources (Tailwind’s automatic detection off)', () => {
    expect(readFileSync(SHEET, 'utf8')).toMatch(/^@import 'tailwindcss' source\(none\);$/m);
    expect(sheetSources().length).toBeGreaterThan(0);
  });

  it('covers every file with classes that a player page or the global not-found page renders', () => {
    const entries = [...walk(path.join(ROOT, 'app/(player)')), path.join(ROOT, 'app/global-not-found.tsx')];
    const rendered = [...reachable(entries)].filter(carriesClasses);
    // The walk is real: it reaches the checkout's and the on-ramp's components through the pages' imports.
    expect(rendered).toContain(path.join(ROOT, 'components/checkout/payment-tabs.tsx'));
    expect(rendered).toContain(path.join(ROOT, 'components/onramp/onramp-form.tsx'));
    const sources = sheetSources();
    const outside = rendered.filter((file) => !covered(file, sources)).map((file) => path.relative(ROOT, file));
    expect(outside, 'add an @source line to app/(player)/player.css for these').toEqual([]);
  });

  it('leaves out what only other pages render (the dashboard’s components)', () => {
    const dashboardFile = walk(path.join(ROOT, 'components/dashboard')).find(carriesClasses);
    expect(dashboardFile).toBeDefined();
    expect(covered(dashboardFile!, sheetSources())).toBe(false);
  });
});
