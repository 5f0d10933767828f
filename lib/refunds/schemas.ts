/** Refunds on the wire: the request of POST /api/charges/{chargeId}/refunds and the refund object it returns. */
import { z } from 'zod';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { decimalAmountSchema, timestampSchema } from '@/lib/charges/schemas';

export const createRefundBodySchema = z
  .object({
    amount: decimalAmountSchema.optional().meta({
      description:
        'How much to refund, in whole tokens of the charge. Default: everything still refundable (what the charge received, over- and late payments included, minus earlier refunds).',
      example: '4.99',
    }),
    toAddress: z.string().trim().min(1).max(100).optional().meta({
      description:
        'Where to send the refund. Default: the address the refunded funds came from (for a balance payment, the consumer’s Chargeport wallet). Required when the payer was a contract (a smart-contract wallet or an exchange) or several addresses paid. It must be an address that paid this charge: any other is refused (403 transfer_not_authorized).',
      example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    }),
    reason: z.string().trim().max(500).optional().meta({ description: 'Free text kept with the refund (yours, not shown to the payer).' }),
  })
  .strict()
  .meta({ id: 'CreateRefundRequest' });
export type CreateRefundBody = z.infer<typeof createRefundBodySchema>;

const REFUND_STATUSES = ['pending', 'submitted', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

export const refundSchema = z
  .object({
    id: z.string().meta({ example: 'rf_4Vd9TQ1aQm2xA7bC3dE5fG' }),
    object: z.literal('refund'),
    chargeId: z.string(),
    mode: z.enum(['test', 'live']),
    status: z.enum(REFUND_STATUSES).meta({
      description:
        'pending: recorded, not yet sent; submitted: sent to the network; succeeded: confirmed at the chain’s depth; failed: nothing was moved (the funds stay refundable).',
    }),
    chain: z.enum(CHAIN_NAMES),
    token: z.object({ symbol: z.string(), address: z.string(), decimals: z.number().int() }),
    amount: z.string().meta({ description: 'Whole tokens, exact decimal text.', example: '4.99' }),
    amountBaseUnits: z.string().meta({ description: "In the token's base units (integer text).", example: '4990000' }),
    destination: z.string(),
    source: z.enum(['deposit_address', 'merchant_wallet']).meta({
      description: 'Where the funds were paid from: the charge’s deposit address (before its sweep) or your merchant wallet (after it).',
    }),
    reason: z.string().nullable(),
    transactionHash: z.string().nullable(),
    failureReason: z.string().nullable(),
    timeline: z.array(z.object({ status: z.enum(REFUND_STATUSES), at: timestampSchema, transactionHash: z.string().optional() })),
    createdAt: timestampSchema,
  })
  .meta({ id: 'Refund' });
export type RefundResource = z.infer<typeof refundSchema>;

export const refundListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(refundSchema),
    refundable: z.object({ amount: z.string(), amountBaseUnits: z.string() }).meta({
      description: 'What can still be refunded now (received − refunded); part of it may have left Chargeport (direct transfers).',
    }),
  })
  .meta({ id: 'RefundList' });
export type RefundList = z.infer<typeof refundListSchema>;
