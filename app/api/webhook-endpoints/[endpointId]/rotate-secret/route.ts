// POST /api/webhook-endpoints/{endpointId}/rotate-secret — a new signing secret (returned once); the
// old one keeps signing for `overlapHours` (default 24).
import { readJsonBody } from '@/lib/http/body';
import { parseOrThrow } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withApiKey } from '@/lib/api/with-api-key';
import { ownerOf } from '@/lib/webhooks/get-webhook-endpoint';
import { rotateWebhookSecret } from '@/lib/webhooks/rotate-webhook-secret';
import { rotateWebhookSecretBodySchema } from '@/lib/webhooks/schemas';
import { serializeWebhookEndpoint } from '@/lib/webhooks/serialize';
import { notifyWebhookEndpointChange } from '@/lib/merchants/notify-endpoint-change';
import { methodsNotAllowed } from '@/lib/api/methods';

export const POST = withApiKey(async (request, ctx, params) => {
  const input = parseOrThrow(rotateWebhookSecretBodySchema, await readJsonBody(request, { optional: true }));
  const { endpoint, secret } = await rotateWebhookSecret({
    owner: ownerOf(ctx),
    endpointId: params.endpointId ?? '',
    overlapHours: input.overlapHours,
  });
  await notifyWebhookEndpointChange({ ...ownerOf(ctx), actorUserId: null, change: 'secret rotated', endpoint });
  return ok({ ...serializeWebhookEndpoint(endpoint), secret });
});

export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
