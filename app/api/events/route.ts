// GET /api/events — the key's webhook events, newest first (cursor pagination, type filter), to
// reconcile deliveries an endpoint missed.
import { parseOrThrow, searchParamsObject } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withApiKey } from '@/lib/api/with-api-key';
import { ownerOf } from '@/lib/webhooks/get-webhook-endpoint';
import { listEvents } from '@/lib/webhooks/list-events';
import { listEventsQuerySchema } from '@/lib/webhooks/schemas';
import { serializeWebhookEvent } from '@/lib/webhooks/serialize';
import { methodsNotAllowed } from '@/lib/api/methods';

export const GET = withApiKey(async (request, ctx) => {
  const query = parseOrThrow(listEventsQuerySchema, searchParamsObject(request));
  const page = await listEvents({ owner: ownerOf(ctx), query });
  return ok({ object: 'list', data: page.events.map(serializeWebhookEvent), has_more: page.hasMore });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
