/** Fixed secrets of the vitest suite: never used outside tests. */
export const TEST_SECRETS = {
  AUTH_SECRET: 'test-auth-secret-0123456789abcdefghijklmnop',
  PIN_PEPPER: 'test-pin-pepper-0123456789abcdefghijklmnopq',
  WALLET_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
  DEPOSIT_HD_SEED: Buffer.alloc(32, 5).toString('base64'),
  SANDBOX_PROVIDER_SECRET: 'test-sandbox-provider-secret-0123456789abcdef',
} as const;
