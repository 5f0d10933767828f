// POST /api/webhook-endpoints — create an endpoint in the key's mode (returns its signing secret once).
// GET  /api/webhook-endpoints — the key's endpoints.
import { readJsonBody } from '@/lib/http/body';
import { parseOrThrow } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withApiKey } from '@/lib/api/with-api-key';
import { createWebhookEndpoint } from '@/lib/webhooks/create-webhook-endpoint';
import { ownerOf } from '@/lib/webhooks/get-webhook-endpoint';
import { listWebhookEndpoints } from '@/lib/webhooks/list-webhook-endpoints';
import { createWebhookEndpointBodySchema } from '@/lib/webhooks/schemas';
import { serializeWebhookEndpoint } from '@/lib/webhooks/serialize';
import { notifyWebhookEndpointChange } from '@/lib/merchants/notify-endpoint-change';
import { methodsNotAllowed } from '@/lib/api/methods';

export const POST = withApiKey(async (request, ctx) => {
  const input = parseOrThrow(createWebhookEndpointBodySchema, await readJsonBody(request));
  const { endpoint, secret } = await createWebhookEndpoint({ owner: ownerOf(ctx), input });
  await notifyWebhookEndpointChange({ ...ownerOf(ctx), actorUserId: null, change: 'created', endpoint });
  return ok({ ...serializeWebhookEndpoint(endpoint), secret });
});

export const GET = withApiKey(async (_request, ctx) => {
  const endpoints = await listWebhookEndpoints({ owner: ownerOf(ctx) });
  return ok({ object: 'list', data: endpoints.map((row) => serializeWebhookEndpoint(row)), has_more: false });
});

export const { PUT, PATCH, DELETE } = methodsNotAllowed('POST', 'GET');
