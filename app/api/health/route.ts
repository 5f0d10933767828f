// GET /api/health — 200 when the database and every configured chain answer, 503 otherwise.
import { checkHealth } from '@/lib/health/check-health';
import { methodsNotAllowed } from '@/lib/api/methods';

export async function GET(): Promise<Response> {
  const report = await checkHealth();
  return Response.json(report, { status: report.status === 'ok' ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
