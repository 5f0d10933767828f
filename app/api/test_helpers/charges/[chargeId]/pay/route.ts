// POST /api/test_helpers/charges/{chargeId}/pay — pay a test charge from the sandbox payer (test keys only).
import { readJsonBody } from '@/lib/http/body';
import { readIdempotencyKey, requestFingerprint, withIdempotency } from '@/lib/api/idempotency';
import { methodsNotAllowed } from '@/lib/api/methods';
import { parseOrThrow } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withApiKey } from '@/lib/api/with-api-key';
import { payTestCharge } from '@/lib/test-helpers/pay-test-charge';
import { payTestChargeBodySchema } from '@/lib/test-helpers/schemas';

export const POST = withApiKey(async (request, ctx, params) => {
  const chargeId = params.chargeId ?? '';
  const body = parseOrThrow(payTestChargeBodySchema, await readJsonBody(request, { optional: true }));
  const key = readIdempotencyKey(request);
  const result = await withIdempotency(
    { apiKey: ctx.apiKey, key, fingerprint: key === undefined ? '' : requestFingerprint(`payTestCharge:${chargeId}`, body) },
    async () => ({ status: 200, body: await payTestCharge({ ctx, chargeId, body }) }),
  );
  return ok(result.body, { status: result.status, headers: result.replayed ? { 'idempotent-replayed': 'true' } : {} });
});

export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
