// POST /api/charges/{chargeId}/cancel — cancel a pending charge of the key's merchant.
import { ok } from '@/lib/http/response-envelope';
import { withApiKey } from '@/lib/api/with-api-key';
import { cancelCharge } from '@/lib/charges/cancel-charge';
import { getCharge } from '@/lib/charges/get-charge';
import { serializeCharge } from '@/lib/charges/serialize';
import { methodsNotAllowed } from '@/lib/api/methods';

export const POST = withApiKey(async (_request, ctx, params) => {
  const chargeId = params.chargeId ?? '';
  await cancelCharge({ ctx, chargeId });
  const { charge, events, payments } = await getCharge({ ctx, chargeId });
  return ok(serializeCharge(charge, events, payments));
});

export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
