// GET /api/checkout/{chargeId}/status — the hosted checkout's live status (public: the id is the capability).
import { loadCheckoutStatus } from '@/lib/payments/checkout-status';
import { methodsNotAllowed } from '@/lib/api/methods';

export async function GET(_request: Request, { params }: { params: Promise<{ chargeId: string }> }): Promise<Response> {
  const { chargeId } = await params;
  const status = /^ch_[0-9A-Za-z]{22}$/.test(chargeId) ? await loadCheckoutStatus(chargeId) : undefined;
  if (!status) return Response.json({ data: null, error: { code: 'not_found', message: `No charge ${chargeId}.` } }, { status: 404 });
  return Response.json({ data: status, error: null }, { headers: { 'cache-control': 'no-store' } });
}

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
