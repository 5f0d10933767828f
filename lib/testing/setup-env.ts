/** Runs in each test worker before the test file: point the app's config at the shared test stack. */
import { inject } from 'vitest';

const stackEnv = inject('stackEnv');
Object.assign(process.env, stackEnv, {
  NODE_ENV: 'test',
  APP_URL: 'http://localhost:3999',
  LOG_LEVEL: 'error',
  RUN_JOBS_IN_WEB: 'false',
});
