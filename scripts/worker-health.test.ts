/**
 * compose.yaml's worker health check: a worker with WORKER_METRICS_PORT answers GET /health with the
 * readiness of its database (200 once its jobs started and every migration is applied). A real worker
 * process (tsx), on a private database so its jobs touch nothing of the other test files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { findFreePort } from '@/scripts/stack/free-port';
import { switchToPrivateDatabase } from '@/test/private-database';

describe('the worker health endpoint', { timeout: 120_000 }, () => {
  const saved = process.env.DATABASE_URL;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    await switchToPrivateDatabase('workerhealth');
  });
  afterAll(() => {
    child?.kill('SIGTERM');
    process.env.DATABASE_URL = saved;
    resetEnvCache();
  });

  it('answers 200 with the database readiness once the jobs started; other paths 404', async () => {
    const port = await findFreePort();
    child = spawn('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/worker.mts'], {
      env: { ...process.env, WORKER_METRICS_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('background jobs started')) resolve();
      };
      child!.stdout!.on('data', onData);
      child!.stderr!.on('data', onData);
      child!.on('exit', (code) => reject(new Error(`worker exited (${code}) before starting:\n${output}`)));
    });
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(await health.json()).toEqual({ status: 'ready', db: 'ok', migrations: 'applied' });
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(404);
  });
});
