/** Next.js calls register() once per server process: start the background jobs there (Node runtime only). */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { env } = await import('@/lib/env');
  if (!env().RUN_JOBS_IN_WEB || !env().DATABASE_URL) return;
  const { startBackgroundJobs } = await import('@/lib/jobs/background-jobs');
  await startBackgroundJobs();
}
