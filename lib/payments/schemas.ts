/**
 * The wire format of the hosted checkout's live status (GET /api/checkout/{chargeId}/status, and each
 * message of its event stream): used by the route's loader (its type), the OpenAPI document, and so the
 * response validation of the tests. The C# SDK polls it from Unity WebGL games.
 */
import { z } from 'zod';
import { CHARGE_STATUSES } from '@/lib/charges/state';
import { PAYMENT_STATUSES } from './state';

export const checkoutStatusSchema = z
  .object({
    chargeId: z.string(),
    status: z.enum(CHARGE_STATUSES),
    total: z.string().meta({ description: 'Exact decimal text in the token.' }),
    received: z.string(),
    due: z.string(),
    symbol: z.string(),
    expiresAt: z.string().meta({ format: 'date-time' }),
    successUrl: z.string().nullable(),
    payments: z.array(
      z.object({
        txHash: z.string(),
        amount: z.string(),
        status: z.enum(PAYMENT_STATUSES),
        confirmations: z.number().int(),
        required: z.number().int(),
        explorerUrl: z.string().optional(),
        isLate: z.boolean(),
      }),
    ),
    payable: z.boolean().meta({
      description:
        'Whether any way to pay may be offered now: pending, or processing with something still due; before expiresAt; and no payment in flight.',
    }),
    inFlight: z
      .object({ method: z.enum(['balance', 'swap', 'fiat']), message: z.string(), resumeUrl: z.string().nullable() })
      .nullable()
      .meta({ description: 'A payment the service is carrying out for this charge (expiry and cancel wait for it).' }),
    deposit: z
      .object({ address: z.string(), uri: z.string() })
      .nullable()
      .meta({ description: 'The deposit address, and the wallet request for the amount still due.' }),
  })
  .meta({ id: 'CheckoutStatus' });
