/**
 * `npm run worker`: runs the background jobs (charge expiry, clean-ups, webhook delivery) without
 * serving HTTP. At scale, run web instances with RUN_JOBS_IN_WEB=false (`npm start`: START_WORKER=false too) and one or more of these against
 * the same DATABASE_URL; PostgreSQL row locks and pg-boss keep the jobs from doing any work twice.
 * Without NODE_ENV=production it refuses a database a production server has opened (lib/admin/server-start.ts).
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { checkReadiness } from '@/lib/health/check-readiness';
import { metricsResponse } from '@/lib/admin/metrics-response';
import { env } from '@/lib/env';
import { closeDb, selectJobsPool } from '@/lib/db/client';
import { DeploymentRefused, recordStart } from '@/lib/admin/server-start';
import { startBackgroundJobs, stopBackgroundJobs } from '@/lib/jobs/background-jobs';
import { redactConsole } from '@/lib/log';
import { startTracing } from '@/lib/start-tracing';

if (existsSync('.env')) process.loadEnvFile('.env');
redactConsole();
const stopTracing = startTracing('worker');
selectJobsPool();
if (!env().DATABASE_URL) {
  console.error("npm run worker needs DATABASE_URL (the web instances' database).");
  process.exit(1);
}
try {
  // A production worker records its start; one without NODE_ENV=production refuses a production database (N17).
  await recordStart('worker');
} catch (error) {
  if (!(error instanceof DeploymentRefused)) {
    console.warn('[chargeport] could not record the worker start (migrations not applied?):', error);
  } else {
    console.error(`npm run worker refused to start: ${error.message}`);
    await closeDb();
    process.exit(1);
  }
}
await startBackgroundJobs();
const metricsPort = env().WORKER_METRICS_PORT;
// The worker's own counters (payments seen, webhook deliveries, reconciliation) for Prometheus to scrape,
// and GET /health for a container health check: served once the jobs started, 200 while the database
// answers with every migration applied (the web's /api/health/ready test), else 503.
const metricsServer = metricsPort
  ? createServer((request, response) => {
      if (request.method === 'GET' && request.url === '/health') {
        void checkReadiness().then((readiness) => {
          response
            .writeHead(readiness.status === 'ready' ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
            .end(JSON.stringify(readiness));
        });
        return;
      }
      if (request.method !== 'GET' || request.url !== '/metrics') return void response.writeHead(404).end();
      void metricsResponse(request.headers.authorization ?? null).then(async (answer) => {
        response.writeHead(answer.status, Object.fromEntries(answer.headers)).end(await answer.text());
      });
    }).listen(metricsPort)
  : undefined;
console.log(`[chargeport] worker ${process.pid}: background jobs started`);
// The scheduler's timers are unref'd; keep this process alive until told to stop.
const keepAlive = setInterval(() => {}, 60_000);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    clearInterval(keepAlive);
    metricsServer?.close();
    await stopBackgroundJobs();
    await closeDb();
    await stopTracing?.();
    process.exit(0);
  });
}
