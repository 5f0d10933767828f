// GET /api/checkout/{chargeId}/events — the hosted checkout's live status as server-sent events (public: the id is the capability).
import { withPublic } from '@/lib/api/with-public';
import { AppError } from '@/lib/errors';
import { clientIpFrom } from '@/lib/http/client-ip';
import { openCheckoutEventStream } from '@/lib/payments/checkout-event-stream';
import { loadCheckoutStatus } from '@/lib/payments/checkout-status';
import { methodsNotAllowed } from '@/lib/api/methods';

export const dynamic = 'force-dynamic';

export const GET = withPublic(async (request, _ctx, { chargeId = '' }) => {
  const initial = /^ch_[0-9A-Za-z]{22}$/.test(chargeId) ? await loadCheckoutStatus(chargeId) : undefined;
  if (!initial) throw new AppError('not_found', `No charge ${chargeId.slice(0, 64)}.`);
  const stream = openCheckoutEventStream({ initial, clientIp: clientIpFrom(request.headers), request });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      // no-transform: the response is not compressed (compression would hold events back until a buffer fills).
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    },
  });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
