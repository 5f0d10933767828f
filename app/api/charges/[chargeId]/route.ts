// GET /api/charges/{chargeId} — one charge of the key's merchant, with its timeline.
import { ok } from '@/lib/http/response-envelope';
import { corsPreflight } from '@/lib/api/cors';
import { withApiKey } from '@/lib/api/with-api-key';
import { getCharge } from '@/lib/charges/get-charge';
import { serializeCharge } from '@/lib/charges/serialize';
import { methodsNotAllowed } from '@/lib/api/methods';

export const GET = withApiKey(
  async (_request, ctx, params) => {
    const { charge, events, payments } = await getCharge({ ctx, chargeId: params.chargeId ?? '' });
    return ok(serializeCharge(charge, events, payments));
  },
  { allowPublishable: true },
);

export const OPTIONS = corsPreflight;

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
