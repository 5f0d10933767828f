// GET    /api/webhook-endpoints/{endpointId} — one endpoint of the key's merchant and mode.
// PATCH  /api/webhook-endpoints/{endpointId} — change url, eventTypes, description, enabled.
// DELETE /api/webhook-endpoints/{endpointId} — delete it (and its delivery log).
import { readJsonBody } from '@/lib/http/body';
import { parseOrThrow } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withApiKey } from '@/lib/api/with-api-key';
import { deleteWebhookEndpoint } from '@/lib/webhooks/delete-webhook-endpoint';
import { getWebhookEndpoint, ownerOf } from '@/lib/webhooks/get-webhook-endpoint';
import { updateWebhookEndpointBodySchema } from '@/lib/webhooks/schemas';
import { serializeWebhookEndpoint } from '@/lib/webhooks/serialize';
import { updateWebhookEndpoint } from '@/lib/webhooks/update-webhook-endpoint';
import { notifyWebhookEndpointChange } from '@/lib/merchants/notify-endpoint-change';
import { methodsNotAllowed } from '@/lib/api/methods';

export const GET = withApiKey(async (_request, ctx, params) => {
  const endpoint = await getWebhookEndpoint({ owner: ownerOf(ctx), endpointId: params.endpointId ?? '' });
  return ok(serializeWebhookEndpoint(endpoint));
});

export const PATCH = withApiKey(async (request, ctx, params) => {
  const input = parseOrThrow(updateWebhookEndpointBodySchema, await readJsonBody(request));
  const endpoint = await updateWebhookEndpoint({ owner: ownerOf(ctx), endpointId: params.endpointId ?? '', input });
  await notifyWebhookEndpointChange({ ...ownerOf(ctx), actorUserId: null, change: 'updated', endpoint });
  return ok(serializeWebhookEndpoint(endpoint));
});

export const DELETE = withApiKey(async (_request, ctx, params) => {
  const { id, url } = await deleteWebhookEndpoint({ owner: ownerOf(ctx), endpointId: params.endpointId ?? '' });
  await notifyWebhookEndpointChange({ ...ownerOf(ctx), actorUserId: null, change: 'deleted', endpoint: { id, url } });
  return ok({ id, object: 'webhook_endpoint', deleted: true });
});

export const { POST, PUT } = methodsNotAllowed('GET', 'PATCH', 'DELETE');
