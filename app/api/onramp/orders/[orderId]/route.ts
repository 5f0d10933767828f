// GET /api/onramp/orders/{orderId} — the order page's live view (public: the unguessable id is the capability, like a receipt).
import { ok } from '@/lib/http/response-envelope';
import { withPublic } from '@/lib/api/with-public';
import { AppError } from '@/lib/errors';
import { isIdOf } from '@/lib/ids';
import { getOnrampOrderView } from '@/lib/onramp/orders/get-order';
import { methodsNotAllowed } from '@/lib/api/methods';

export const GET = withPublic(async (_request, _ctx, { orderId = '' }) => {
  const order = isIdOf('onrampOrder', orderId) ? await getOnrampOrderView(orderId) : null;
  if (!order) throw new AppError('not_found', `No on-ramp order ${orderId.slice(0, 64)}.`);
  return ok(order);
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
