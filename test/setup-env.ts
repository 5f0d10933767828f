/** Runs in each test worker before the test file: point the app's config at the shared test stack. */
import { inject } from 'vitest';
import { TEST_SECRETS } from './test-secrets';

const stackEnv = inject('stackEnv');
Object.assign(process.env, stackEnv, {
  NODE_ENV: 'test',
  DATA_DIR: inject('dataDir'),
  ...TEST_SECRETS,
  SMS_PROVIDER: 'dev',
  APP_URL: 'http://localhost:3999',
  LOG_LEVEL: 'error',
  RUN_JOBS_IN_WEB: 'false',
  // Every test sends from one address (or none): per-IP SMS limits would trip across files. lib/accounts/sms-limits.test.ts sets its own.
  SMS_PER_IP_PER_HOUR: '100000',
});
