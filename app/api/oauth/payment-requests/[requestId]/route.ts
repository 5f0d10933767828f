// GET /api/oauth/payment-requests/{requestId} — the app polls its payment request: confirmed, declined,
// expired, and the charge's own status (succeeded once the payment is confirmed on chain).
import { corsPreflight } from '@/lib/api/cors';
import { methodsNotAllowed } from '@/lib/api/methods';
import { ok } from '@/lib/http/response-envelope';
import { withAccessToken } from '@/lib/api/with-access-token';
import { getPaymentRequest } from '@/lib/oauth/payment-requests';

export const GET = withAccessToken('payments', async (_request, ctx, params) =>
  ok(await getPaymentRequest({ ctx, id: params.requestId ?? '' })),
);

export const OPTIONS = corsPreflight;

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
