/** Next.js calls register() once per server process: start the background jobs there (Node runtime only). */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // Traces over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set (lib/start-tracing.ts); before anything is traced.
  const { startTracing } = await import('@/lib/start-tracing');
  const stopTracing = startTracing('web');
  if (stopTracing) process.once('beforeExit', () => void stopTracing());
  // First, so every request is stamped with its peer address (lib/http/client-ip.ts) and nothing
  // printed (Next.js prints errors that escape a request) carries a credential (lib/log.ts).
  const { recordPeerAddresses } = await import('@/lib/http/peer-address');
  recordPeerAddresses();
  // One structured line per request, and the request-duration metrics (lib/http/record-requests.ts).
  const { recordRequests } = await import('@/lib/http/record-requests');
  recordRequests();
  const { redactConsole } = await import('@/lib/log');
  redactConsole();
  const { env } = await import('@/lib/env');
  // The phone is optional (spec): production without an SMS provider runs with linking off, and says so once.
  const { announcePhoneLinking } = await import('@/lib/accounts/phone-linking-enabled');
  announcePhoneLinking();
  if (!env().DATABASE_URL) return;
  // Which deployment this database belongs to, for the admin CLI and workers (lib/admin/server-start.ts);
  // a development server refuses a production database here (N17).
  const { DeploymentRefused, recordStart } = await import('@/lib/admin/server-start');
  try {
    await recordStart('server');
  } catch (error) {
    if (error instanceof DeploymentRefused) throw error;
    const { log } = await import('@/lib/log');
    log.warn('could not record the server start (migrations not applied?)', { error });
  }
  if (!env().RUN_JOBS_IN_WEB) return;
  const { startBackgroundJobs } = await import('@/lib/jobs/background-jobs');
  await startBackgroundJobs();
}
