/** Next.js calls register() once per server process: start the background jobs there (Node runtime only). */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // First, so every request is stamped with its peer address (lib/http/client-ip.ts) and nothing
  // printed (Next.js prints errors that escape a request) carries a credential (lib/log.ts).
  const { recordPeerAddresses } = await import('@/lib/http/peer-address');
  recordPeerAddresses();
  // One structured line per request, and the request-duration metrics (lib/http/request-log.ts).
  const { recordRequests } = await import('@/lib/http/request-log');
  recordRequests();
  const { redactConsole } = await import('@/lib/log');
  redactConsole();
  const { env } = await import('@/lib/env');
  if (!env().RUN_JOBS_IN_WEB || !env().DATABASE_URL) return;
  const { startBackgroundJobs } = await import('@/lib/jobs/background-jobs');
  await startBackgroundJobs();
}
