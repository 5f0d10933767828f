// GET /api/checkout/{chargeId}/status — the hosted checkout's live status (public: the id is the capability).
// Any origin may read it (no cookie or key is involved): the C# SDK polls it from Unity WebGL games.
import { ANY_ORIGIN } from '@/lib/api/cors';
import { ok } from '@/lib/http/response-envelope';
import { withPublic } from '@/lib/api/with-public';
import { AppError } from '@/lib/errors';
import { loadCheckoutStatus } from '@/lib/payments/checkout-status';
import { methodsNotAllowed } from '@/lib/api/methods';

export const GET = withPublic(
  async (_request, _ctx, { chargeId = '' }) => {
    const status = /^ch_[0-9A-Za-z]{22}$/.test(chargeId) ? await loadCheckoutStatus(chargeId) : undefined;
    if (!status) throw new AppError('not_found', `No charge ${chargeId.slice(0, 64)}.`);
    return ok(status);
  },
  { corsOrigin: ANY_ORIGIN },
);

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
