// GET /api/onramp/orders/{orderId} — the order page's live view (public: the unguessable id is the capability, like a receipt).
import { isIdOf } from '@/lib/ids';
import { getOnrampOrderView } from '@/lib/onramp/orders/get-order';
import { methodsNotAllowed } from '@/lib/api/methods';

export async function GET(_request: Request, { params }: { params: Promise<{ orderId: string }> }): Promise<Response> {
  const { orderId } = await params;
  const order = isIdOf('onrampOrder', orderId) ? await getOnrampOrderView(orderId) : null;
  if (!order)
    return Response.json(
      { data: null, error: { code: 'not_found', message: `No on-ramp order ${orderId.slice(0, 64)}.` } },
      { status: 404, headers: { 'cache-control': 'no-store' } },
    );
  return Response.json({ data: order, error: null }, { headers: { 'cache-control': 'no-store' } });
}

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
