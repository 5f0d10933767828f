import { applyProviderWebhook } from '@/lib/onramp/orders/apply-provider-webhook';

/** Order webhooks from on-ramp providers: the body is read raw, since signatures cover its exact bytes. */
export async function POST(request: Request, context: { params: Promise<{ providerId: string }> }) {
  const { providerId } = await context.params;
  const rawBody = await request.text();
  const result = await applyProviderWebhook(providerId, { headers: request.headers, rawBody });
  return Response.json({ received: result.status < 300, outcome: result.outcome }, { status: result.status });
}
