// POST /api/charges/{chargeId}/pay — a signed-in consumer pays the charge from their balance with the PIN.
// Same path as the checkout page's "Pay from balance" (lib/payments/pay-from-balance.ts).
import { z } from 'zod';
import { readJsonBody } from '@/lib/http/body';
import { parseOrThrow } from '@/lib/api/parse';
import { ok } from '@/lib/http/response-envelope';
import { withSession } from '@/lib/api/with-session';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { methodsNotAllowed } from '@/lib/api/methods';

const payBodySchema = z.object({ pin: z.string().regex(/^\d{6}$/, 'must be your 6-digit PIN') }).strict();

export const POST = withSession(async (request, { user }, params) => {
  const { pin } = parseOrThrow(payBodySchema, await readJsonBody(request));
  return ok(await payFromBalance({ userId: user.id, chargeId: params.chargeId ?? '', pin }));
});

export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
