/**
 * compose.yaml's worker health check: a worker with WORKER_METRICS_PORT answers GET /health with the
 * readiness of its database (200 once its jobs started and every migration is applied), and GET /metrics its
 * series with the process's default ones. A real worker
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

  it('answers 200 with the database readiness once the jobs started, serves its metrics with the process series; other paths 404', async () => {
    const port = await findFreePort();
    child = spawn('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/worker.mts'], {
      env: { ...process.env, WORKER_METRICS_PORT: String(port), METRICS_TOKEN: 'worker-metrics-token-0123' },
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
    // Its metrics: Chargeport's series and the process's default ones (CPU, memory, heap, event loop).
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: 'Bearer worker-metrics-token-0123' } });
    expect(metrics.status).toBe(200);
    const text = await metrics.text();
    expect(text).toContain('# TYPE chargeport_queue_depth gauge');
    expect(text).toMatch(/^process_cpu_user_seconds_total [0-9.e+-]+$/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes [1-9]/m);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  });
});
