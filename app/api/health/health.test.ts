import { afterEach, describe, expect, it } from 'vitest';
import { clearHealthCache } from '@/lib/health/check-health';
import { resetEnvCache } from '@/lib/env';
import { GET } from './route';

describe('GET /api/health', () => {
  afterEach(() => {
    delete process.env.RPC_URL_BSC;
    resetEnvCache();
    clearHealthCache();
  });

  it('200 with db ok and every configured chain ok; unconfigured chains say so', async () => {
    clearHealthCache();
    const res = await GET();
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.status).toBe('ok');
    expect(body.db).toBe('ok');
    expect(body.chains.POLYGON).toBe('ok');
    expect(body.chains.POLYGON_AMOY).toBe('ok');
    expect(body.chains.SOLANA).toBe('not_configured');
  });

  it('503 degraded when a configured chain does not answer', async () => {
    process.env.RPC_URL_BSC = 'http://127.0.0.1:9'; // discard port: nothing listens
    resetEnvCache();
    clearHealthCache();
    const res = await GET();
    expect(res.status).toBe(503);
    const body = await res.json();
    expect(body.status).toBe('degraded');
    expect(body.chains.BSC).toBe('down');
    expect(body.db).toBe('ok');
  });
});
