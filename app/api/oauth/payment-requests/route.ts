// POST /api/oauth/payment-requests — an app (OAuth access token with `payments`) asks the signed-in user
// to pay one of its merchant's charges; the user confirms with the PIN on Chargeport (lib/oauth/payment-requests.ts).
import { readJsonBody } from '@/lib/http/body';
import { corsPreflight } from '@/lib/api/cors';
import { methodsNotAllowed } from '@/lib/api/methods';
import { parseOrThrow } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withAccessToken } from '@/lib/api/with-access-token';
import { createPaymentRequest } from '@/lib/oauth/payment-requests';
import { createPaymentRequestSchema } from '@/lib/oauth/schemas';

export const POST = withAccessToken('payments', async (request, ctx) => {
  const { chargeId } = parseOrThrow(createPaymentRequestSchema, await readJsonBody(request));
  return ok(await createPaymentRequest({ ctx, chargeId }), { status: 201 });
});

export const OPTIONS = corsPreflight;

export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
