/** `npm run test:faults`: the fault-injection suite (test/faults), its own step of `npm test`. */
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/faults/**/*.test.ts'],
    exclude: ['**/node_modules/**'],
    testTimeout: 180_000,
  },
});
