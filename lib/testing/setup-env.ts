/** Runs in each test worker before the test file: point the app's config at the shared test stack. */
import { inject } from 'vitest';

const stackEnv = inject('stackEnv');
Object.assign(process.env, stackEnv, {
  NODE_ENV: 'test',
  DATA_DIR: inject('dataDir'),
  // Fixed test secrets: never used outside tests.
  AUTH_SECRET: 'test-auth-secret-0123456789abcdefghijklmnop',
  PIN_PEPPER: 'test-pin-pepper-0123456789abcdefghijklmnopq',
  WALLET_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
  DEPOSIT_HD_SEED: Buffer.alloc(32, 5).toString('base64'),
  SMS_PROVIDER: 'dev',
  APP_URL: 'http://localhost:3999',
  LOG_LEVEL: 'error',
  RUN_JOBS_IN_WEB: 'false',
});
