// POST /api/onramp/webhooks/{providerId} — order webhooks from on-ramp providers. The body is read raw
// (signatures cover its exact bytes) and capped before it is read: anyone can post here.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { readBodyLimited } from '@/lib/http/body';
import { methodsNotAllowed } from '@/lib/api/methods';
import { fail } from '@/lib/http/response-envelope';
import { PROVIDER_WEBHOOK_MAX_BYTES, applyProviderWebhook } from '@/lib/onramp/orders/apply-provider-webhook';
import type { providerWebhookAnswerSchema } from '@/lib/onramp/schemas';

export async function POST(request: Request, context: { params: Promise<{ providerId: string }> }) {
  let rawBody: string;
  try {
    rawBody = (await readBodyLimited(request, PROVIDER_WEBHOOK_MAX_BYTES)).toString('utf8');
  } catch (error) {
    return fail(error, randomUUID());
  }
  const { providerId } = await context.params;
  const result = await applyProviderWebhook(providerId, { headers: request.headers, rawBody });
  const answer: z.infer<typeof providerWebhookAnswerSchema> = { received: result.status < 300, outcome: result.outcome };
  return Response.json(answer, { status: result.status });
}

export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
