// POST /api/createCharge — create a charge for the key's merchant (the spec's endpoint).
import { readJsonBody } from '@/lib/http/body';
import { readIdempotencyKey, requestFingerprint, withIdempotency } from '@/lib/api/idempotency';
import { parseOrThrow } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { corsPreflight } from '@/lib/api/cors';
import { withApiKey } from '@/lib/api/with-api-key';
import { createCharge } from '@/lib/charges/create-charge';
import { createChargeBodySchema } from '@/lib/charges/schemas';
import { methodsNotAllowed } from '@/lib/api/methods';

export const POST = withApiKey(
  async (request, ctx) => {
    const body = await readJsonBody(request);
    const input = parseOrThrow(createChargeBodySchema, body);
    const key = readIdempotencyKey(request);
    const result = await withIdempotency(
      { apiKey: ctx.apiKey, key, fingerprint: key === undefined ? '' : requestFingerprint('createCharge', body) },
      async (tx) => ({ status: 200, body: await createCharge({ ctx: { ...ctx, tx }, input }) }),
    );
    return ok(result.body, { status: result.status, headers: result.replayed ? { 'idempotent-replayed': 'true' } : {} });
  },
  { allowPublishable: true },
);

export const OPTIONS = corsPreflight;

export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
