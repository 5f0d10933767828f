// GET /api/metrics — Prometheus metrics of this instance, behind METRICS_TOKEN (404 when unset, 401 when wrong).
import { methodsNotAllowed } from '@/lib/api/methods';
import { metricsResponse } from '@/lib/admin/metrics-response';

export const dynamic = 'force-dynamic';

export function GET(request: Request): Promise<Response> {
  return metricsResponse(request.headers.get('authorization'));
}

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
