// GET /api/health/ready — the load balancer's probe: 200 when the database answers and every migration is
// applied, 503 otherwise. Chains are not checked: one flaky RPC must not take every instance out.
import { checkReadiness } from '@/lib/health/check-readiness';

import { methodsNotAllowed } from '@/lib/api/methods';

export const dynamic = 'force-dynamic';

export async function GET(): Promise<Response> {
  const readiness = await checkReadiness();
  return Response.json(readiness, { status: readiness.status === 'ready' ? 200 : 503, headers: { 'cache-control': 'no-store' } });
}

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
