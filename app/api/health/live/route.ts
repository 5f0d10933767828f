// GET /api/health/live — the process answers (no database, no chain): restart the instance when this fails.
export const dynamic = 'force-dynamic';

export function GET(): Response {
  return Response.json({ status: 'ok' }, { headers: { 'cache-control': 'no-store' } });
}
