// GET /api/health/live — the process answers (no database, no chain): restart the instance when this fails.
import { methodsNotAllowed } from '@/lib/api/methods';

export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
}

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
