import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      '@': path.resolve(import.meta.dirname),
      'server-only': path.resolve(import.meta.dirname, 'test/server-only-stub.ts'),
    },
  },
  test: {
    include: [
      'lib/**/*.test.ts',
      'test/**/*.test.ts',
      'app/**/*.test.ts',
      'scripts/**/*.test.ts',
      'sdk/test/**/*.test.ts',
      'sdk/node/test/**/*.test.ts',
    ],
    // The fault-injection suite runs on its own (npm run test:faults, its own step of npm test).
    exclude: ['**/node_modules/**', 'test/faults/**'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/setup-env.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // next-auth imports `next/server` without an extension, which Node's ESM resolver refuses; inlined,
    // Vite resolves it (route tests import app/api/auth and session-guarded routes).
    server: { deps: { inline: ['next-auth'] } },
  },
});
