// POST /api/charges/{chargeId}/pay — a signed-in consumer pays the charge from their balance with the PIN.
// Same path as the checkout page's "Pay from balance" (lib/payments/pay-from-balance.ts).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { readJsonBody } from '@/lib/api/body';
import { parseOrThrow } from '@/lib/api/parse';
import { fail, ok } from '@/lib/api/respond';
import { requireUserForAction } from '@/lib/auth/session';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import { methodsNotAllowed } from '@/lib/api/methods';

const payBodySchema = z.object({ pin: z.string().regex(/^\d{6}$/, 'must be your 6-digit PIN') }).strict();

export async function POST(request: Request, { params }: { params: Promise<{ chargeId: string }> }): Promise<Response> {
  const requestId = randomUUID();
  try {
    const user = await requireUserForAction();
    const { pin } = parseOrThrow(payBodySchema, await readJsonBody(request));
    const { chargeId } = await params;
    return ok(await payFromBalance({ userId: user.id, chargeId, pin }));
  } catch (error) {
    return fail(error, requestId);
  }
}

export const { GET, PUT, PATCH, DELETE } = methodsNotAllowed('POST');
