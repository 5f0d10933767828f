import { defineConfig, globalIgnores } from 'eslint/config';
import nextVitals from 'eslint-config-next/core-web-vitals';
import nextTs from 'eslint-config-next/typescript';

export default defineConfig([
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      // Unused code is dead code; a leading underscore marks a deliberately unused parameter.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Test fixtures read untyped JSON responses.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  globalIgnores([
    '.next/**',
    '.data/**',
    'node_modules/**',
    'sdk/dist/**',
    'sdk/node_modules/**',
    'next-env.d.ts',
    'test-results/**',
    'playwright-report/**',
    'lib/chains/artifacts/**',
  ]),
]);
