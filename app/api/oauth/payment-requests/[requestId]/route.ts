// GET /api/oauth/payment-requests/{requestId} — the app polls its payment request: confirmed, declined,
// expired, and the charge's own status (succeeded once the payment is confirmed on chain).
import { randomUUID } from 'node:crypto';
import { ANY_ORIGIN, corsPreflight, withCorsHeaders } from '@/lib/api/cors';
import { methodsNotAllowed } from '@/lib/api/methods';
import { fail, ok } from '@/lib/api/respond';
import { authenticateAccessToken } from '@/lib/oauth/authenticate-access-token';
import { getPaymentRequest } from '@/lib/oauth/payment-requests';

export async function GET(request: Request, { params }: { params: Promise<Record<string, string>> }): Promise<Response> {
  try {
    const ctx = await authenticateAccessToken(request, 'payments');
    return withCorsHeaders(ok(await getPaymentRequest({ ctx, id: (await params).requestId ?? '' })), ANY_ORIGIN);
  } catch (error) {
    return withCorsHeaders(fail(error, randomUUID()), ANY_ORIGIN);
  }
}

export const OPTIONS = corsPreflight;

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
