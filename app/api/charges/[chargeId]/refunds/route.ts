// POST /api/charges/{chargeId}/refunds — refund (part of) a charge of the key's merchant and mode.
// GET  /api/charges/{chargeId}/refunds — the charge's refunds and what is still refundable.
import { readJsonBody } from '@/lib/http/body';
import { readIdempotencyKey } from '@/lib/api/idempotency';
import { parseOrThrow } from '@/lib/api/parse';
import { methodsNotAllowed } from '@/lib/api/methods';
import { ok } from '@/lib/http/response-envelope';
import { withApiKey } from '@/lib/api/with-api-key';
import { createRefund } from '@/lib/refunds/create-refund';
import { listRefunds } from '@/lib/refunds/list-refunds';
import { createRefundBodySchema } from '@/lib/refunds/schemas';

export const POST = withApiKey(async (request, ctx, params) => {
  const body = parseOrThrow(createRefundBodySchema, await readJsonBody(request));
  const { refund, replayed } = await createRefund({
    ctx: { merchantId: ctx.merchant.id, mode: ctx.apiKey.mode, actor: ctx.actor },
    chargeId: params.chargeId ?? '',
    body,
    idempotencyKey: readIdempotencyKey(request),
  });
  return ok(refund, { headers: replayed ? { 'idempotent-replayed': 'true' } : {} });
});

export const GET = withApiKey(async (_request, ctx, params) =>
  ok(await listRefunds({ merchantId: ctx.merchant.id, mode: ctx.apiKey.mode, chargeId: params.chargeId ?? '' })),
);

export const { PUT, PATCH, DELETE } = methodsNotAllowed('GET', 'POST');
