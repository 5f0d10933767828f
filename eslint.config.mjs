import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';
import drizzle from 'eslint-plugin-drizzle';

/**
 * The layers (docs/adr/0010-layers-held-by-lint.md):
 *   app/        pages and route handlers: parse, call one domain verb, render or serialize; never a query
 *   components/ React; never the database
 *   lib/<domain>/ the product; never app/ or components/
 *   foundation  lib/*.ts, lib/db/, lib/chains/: used by every domain, so it imports none of them
 *               (a schema may read its domain's status list from that domain's pure state.ts)
 *   test/       test support: imported by tests only
 *   lib/sandbox-provider/ Sandpiper Pay, the sandbox on-ramp provider: beside the on-ramp, not in it. The
 *               on-ramp reaches it over HTTP like any provider (its adapter's configuration,
 *               lib/onramp/providers/sandbox-adapter.ts); it shares only the adapter's wire protocol.
 *
 * `no-restricted-imports` options do not merge across config objects, so each group lists every
 * restriction that applies to it.
 */
const TEST_SUPPORT = { group: ['@/test/*', '@/test/**'], message: 'test/ is test support: only tests import it.' };
const APP_OR_COMPONENTS = {
  group: ['@/app/*', '@/app/**', '@/components/*', '@/components/**'],
  message: 'lib/ is the product core: it never imports app/ or components/. Move the shared code into lib/.',
};
const DATABASE = {
  group: ['@/lib/db', '@/lib/db/*', '@/lib/db/**'],
  message: 'components/ never reach the database: load data in a lib/ verb and pass it in as props.',
};
const DATABASE_CLIENT = {
  group: ['@/lib/db/client'],
  message: 'Pages, actions and routes do not query: call a lib/ verb that reads or writes (it takes the database itself).',
};
const DOMAINS = {
  // `!@/lib/*/*/` lets the state.ts of a nested domain folder (lib/onramp/orders/) through: a path under a
  // restricted folder could not be let through otherwise.
  group: ['@/lib/*/**', '!@/lib/*/*/', '!@/lib/db/**', '!@/lib/chains/**', '!@/lib/**/state'],
  message: 'Foundation modules (lib/*.ts, lib/db, lib/chains) import no domain; a schema may import its domain’s state.ts.',
};

const SANDBOX_PROVIDER = {
  // Its state.ts (a pure status table) is listed in the state-machine registry, lib/admin/state-machines.ts.
  group: ['@/lib/sandbox-provider', '@/lib/sandbox-provider/**', '!@/lib/sandbox-provider/', '!@/lib/sandbox-provider/state'],
  message:
    'The sandbox provider is reached over HTTP like any provider (configure it in lib/onramp/providers/sandbox-adapter.ts); only its app/ routes, pages and the dev stack import it.',
};
const ONRAMP_INTERNALS = {
  regex: '^@/lib/onramp/(?!providers/(?:sandbox|types)$)',
  message: 'The sandbox provider stands outside the on-ramp: it shares only the wire protocol (lib/onramp/providers/sandbox.ts, types.ts).',
};

const restrict = (...patterns) => ['error', { patterns }];

const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', 'test/**', 'e2e/**', 'sdk/test/**', 'playwright.config.ts', 'vitest.config.ts'];

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    plugins: { drizzle },
    rules: {
      // Unused code is dead code; a leading underscore marks a deliberately unused parameter.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Test fixtures read untyped JSON responses.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      // An update or delete without a where clause touches every row: never what a payment service means.
      'drizzle/enforce-update-with-where': ['error', { drizzleObjectName: ['db', 'tx', 'getDb'] }],
      'drizzle/enforce-delete-with-where': ['error', { drizzleObjectName: ['db', 'tx', 'getDb'] }],
      'no-restricted-imports': restrict(TEST_SUPPORT),
    },
  },
  { files: ['lib/**'], rules: { 'no-restricted-imports': restrict(TEST_SUPPORT, APP_OR_COMPONENTS, SANDBOX_PROVIDER) } },
  { files: ['lib/sandbox-provider/**'], rules: { 'no-restricted-imports': restrict(TEST_SUPPORT, APP_OR_COMPONENTS, ONRAMP_INTERNALS) } },
  {
    files: ['lib/*.ts', 'lib/db/schema/**', 'lib/db/client.ts', 'lib/chains/**'],
    ignores: TEST_FILES,
    rules: { 'no-restricted-imports': restrict(TEST_SUPPORT, APP_OR_COMPONENTS, DOMAINS) },
  },
  { files: ['components/**'], rules: { 'no-restricted-imports': restrict(TEST_SUPPORT, DATABASE) } },
  { files: ['app/**'], rules: { 'no-restricted-imports': restrict(TEST_SUPPORT, DATABASE_CLIENT) } },
  { files: TEST_FILES, rules: { 'no-restricted-imports': 'off' } },
  globalIgnores([
    '.next/**',
    '.data/**',
    'node_modules/**',
    'sdk/dist/**',
    'sdk/node/dist/**',
    'sdk/node/node_modules/**',
    'sdk/node_modules/**',
    'next-env.d.ts',
    'test-results/**',
    'playwright-report/**',
    'lib/chains/artifacts/**',
    // Copied from node_modules at build (scripts/public-assets.mjs).
    'public/docs/api/redoc.standalone.js',
  ]),
]);
