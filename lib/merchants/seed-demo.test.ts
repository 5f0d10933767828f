import { afterEach, describe, expect, it } from 'vitest';
import { authenticateApiKey } from '@/lib/api-keys/authenticate-api-key';
import { DEMO_KEYS, DEMO_MERCHANT, seedDemoData } from './seed-demo';

describe('development seed', () => {
  afterEach(() => {
    (process.env as Record<string, string>).NODE_ENV = 'test';
  });

  it('creates a verified demo merchant whose documented keys work, and is idempotent', async () => {
    await seedDemoData();
    await seedDemoData();
    const test = await authenticateApiKey(DEMO_KEYS.test.plaintext);
    const live = await authenticateApiKey(DEMO_KEYS.live.plaintext);
    expect(test.merchant.id).toBe(DEMO_MERCHANT.id);
    expect(test.apiKey.mode).toBe('test');
    expect(live.apiKey.mode).toBe('live');
    expect(live.merchant.verifiedAt).not.toBeNull();
  });

  it('refuses to run in production', async () => {
    (process.env as Record<string, string>).NODE_ENV = 'production';
    await expect(seedDemoData()).rejects.toThrow(/production/);
  });
});
