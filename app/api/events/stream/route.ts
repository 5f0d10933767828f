// GET /api/events/stream — the key's events as server-sent events, live.
import { parseOrThrow, searchParamsObject } from '@/lib/api/parse';
import { methodsNotAllowed } from '@/lib/api/methods';
import { withApiKey } from '@/lib/api/with-api-key';
import { ownerOf } from '@/lib/webhooks/get-webhook-endpoint';
import { streamEventsQuerySchema } from '@/lib/webhooks/schemas';
import { openEventStream } from '@/lib/webhooks/stream-events';

export const dynamic = 'force-dynamic';

export const GET = withApiKey(async (request, ctx) => {
  const query = parseOrThrow(streamEventsQuerySchema, searchParamsObject(request));
  const startingAfter = request.headers.get('last-event-id')?.trim() || query.starting_after;
  const stream = await openEventStream({
    owner: ownerOf(ctx),
    apiKeyId: ctx.apiKey.id,
    ...(startingAfter ? { startingAfter } : {}),
    ...((query.type ?? query.types) ? { types: query.type ?? query.types } : {}),
    maxSeconds: query.max_seconds,
    request,
  });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      // Proxies (nginx) must pass each message on at once.
      'x-accel-buffering': 'no',
    },
  });
});

export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed('GET');
