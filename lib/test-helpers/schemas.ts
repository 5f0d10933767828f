/** Test helpers on the wire: POST /api/test_helpers/charges/{chargeId}/pay and the payment it made. */
import { z } from 'zod';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { decimalAmountSchema } from '@/lib/charges/schemas';

export const payTestChargeBodySchema = z
  .object({
    amount: decimalAmountSchema.optional().meta({
      description:
        'How much to pay, in whole tokens. Default: what is still due. Less leaves the charge underpaid (it fails at expiry); more overpays it.',
      example: '0.1',
    }),
  })
  .strict()
  .meta({ id: 'PayTestChargeRequest' });
export type PayTestChargeBody = z.infer<typeof payTestChargeBodySchema>;

export const testPaymentSchema = z
  .object({
    object: z.literal('test_payment'),
    chargeId: z.string(),
    chain: z.enum(CHAIN_NAMES).meta({ description: 'The test network the transfer was made on.' }),
    txHash: z.string().meta({ description: 'The mined transfer into the deposit address.' }),
    fromAddress: z.string().meta({ description: 'The sandbox payer.' }),
    toAddress: z.string().meta({ description: "The charge's deposit address." }),
    amount: z.string().meta({ description: 'Whole tokens, exact decimal text.' }),
    amountBaseUnits: z.string(),
  })
  .meta({ id: 'TestPayment', description: 'A transfer made by the sandbox payer; the chain watcher credits it like any payment.' });
export type TestPaymentResource = z.infer<typeof testPaymentSchema>;
