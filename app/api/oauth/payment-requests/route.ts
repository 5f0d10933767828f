// POST /api/oauth/payment-requests — an app (OAuth access token with `payments`) asks the signed-in user
// to pay one of its merchant's charges; the user confirms with the PIN on Chargeport (lib/oauth/payment-requests.ts).
import { randomUUID } from 'node:crypto';
import { readJsonBody } from '@/lib/api/body';
import { ANY_ORIGIN, corsPreflight, withCorsHeaders } from '@/lib/api/cors';
import { methodsNotAllowed } from '@/lib/api/methods';
import { parseOrThrow } from '@/lib/api/parse';
import { fail, ok } from '@/lib/api/respond';
import { authenticateAccessToken } from '@/lib/oauth/authenticate-access-token';
import { createPaymentRequest } from '@/lib/oauth/payment-requests';
import { createPaymentRequestSchema } from '@/lib/oauth/schemas';

export async function POST(request: Request): Promise<Response> {
  try {
    const ctx = await authenticateAccessToken(request, 'payments');
    const { chargeId } = parseOrThrow(createPaymentRequestSchema, await readJsonBody(request));
    return withCorsHeaders(ok(await createPaymentRequest({ ctx, chargeId }), { status: 201 }), ANY_ORIGIN);
  } catch (error) {
    return withCorsHeaders(fail(error, randomUUID()), ANY_ORIGIN);
  }
}

export const OPTIONS = corsPreflight;

export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
