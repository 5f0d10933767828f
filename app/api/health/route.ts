// GET /api/health — the full report for people and monitoring: 200 while this instance can serve (status
// "ok", or "degraded" when a configured chain is unreachable), 503 when it cannot (status "down": database
// unreachable or migrations pending). A chain outage never makes it 503 (see /api/health/ready).
import { checkHealth } from '@/lib/health/check-health';
import { methodsNotAllowed } from '@/lib/api/methods';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const report = await checkHealth();
  return Response.json(report, { status: report.status === 'down' ? 503 : 200, headers: { 'cache-control': 'no-store' } });
}

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
