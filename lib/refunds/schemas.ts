/** Refunds on the wire: the request of POST /api/charges/{chargeId}/refunds and the refund object it returns. */
import { z } from 'zod';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { decimalAmountSchema } from '@/lib/charges/schemas';
import { timestampSchema } from '@/lib/timestamp-schema';
import { REFUND_STATUSES } from './state';

export const createRefundBodySchema = z
  .object({
    amount: decimalAmountSchema.optional().meta({
      description:
        'How much to refund, in whole tokens of the charge. Default: everything still refundable (what the charge received, over- and late payments included, minus earlier refunds).',
      example: '4.99',
    }),
    toAddress: z.string().trim().min(1).max(100).optional().meta({
      description:
        'Where to send the refund: only an address that paid this charge (a secret key or an admin cannot send a refund anywhere else: 403 refund_destination_not_payer; an owner may, from the dashboard, with step-up). Default: the address that paid (for a balance payment, the payer’s Chargeport wallet). When the sender is not the payer or is not known (a card payment delivered by an on-ramp provider, a contract, several senders), leave it out: the refund becomes a claim link (`status` awaiting_claim, `claimUrl`) on which the payer chooses where it goes.',
      example: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    }),
    reason: z.string().trim().max(500).optional().meta({ description: 'Free text kept with the refund (yours, not shown to the payer).' }),
  })
  .strict()
  .meta({ id: 'CreateRefundRequest' });
export type CreateRefundBody = z.infer<typeof createRefundBodySchema>;

export const refundSchema = z
  .object({
    id: z.string().meta({ example: 'rf_4Vd9TQ1aQm2xA7bC3dE5fG' }),
    object: z.literal('refund'),
    chargeId: z.string(),
    mode: z.enum(['test', 'live']),
    status: z.enum(REFUND_STATUSES).meta({
      description:
        'awaiting_claim: a claim link waiting for the payer to choose where it goes (its amount is reserved); expired: nobody claimed it in time (the amount is refundable again); pending: recorded, not yet sent; submitted: sent to the network; succeeded: confirmed at the chain’s depth; failed: nothing was moved (the funds stay refundable).',
    }),
    chain: z.enum(CHAIN_NAMES),
    token: z.object({ symbol: z.string(), address: z.string(), decimals: z.number().int() }),
    amount: z.string().meta({ description: 'Whole tokens, exact decimal text.', example: '4.99' }),
    amountBaseUnits: z.string().meta({ description: "In the token's base units (integer text).", example: '4990000' }),
    destination: z.string().nullable().meta({ description: 'Where the refund goes; null while a claim link waits for the payer.' }),
    source: z.enum(['deposit_address', 'merchant_wallet']).nullable().meta({
      description:
        'Where the funds were paid from: the charge’s deposit address (before its sweep) or your merchant wallet (after it); null until a claim link is claimed.',
    }),
    claimExpiresAt: timestampSchema.nullable().meta({ description: 'A claim link: when it expires if nobody claims it (then `expired`).' }),
    reason: z.string().nullable(),
    transactionHash: z.string().nullable(),
    failureReason: z.string().nullable(),
    timeline: z.array(z.object({ status: z.enum(REFUND_STATUSES), at: timestampSchema, transactionHash: z.string().optional() })),
    createdAt: timestampSchema,
  })
  .meta({ id: 'Refund' });
export type RefundResource = z.infer<typeof refundSchema>;

/** POST's answer: the refund, and for a claim link the link itself, given once (a bearer link: forward it to the payer only). */
export const createdRefundSchema = refundSchema
  .extend({
    claimUrl: z.string().optional().meta({
      description:
        'Only when status is awaiting_claim, only in this answer: the link on which the payer chooses where the refund goes. Anyone holding it can claim the refund: send it to the payer only (we e-mail it to them when we know them). Never in webhooks or lists.',
      example: 'https://pay.example.com/refunds/claim/3kTMd9QxV7Lp2wRb8ZcYf1Ha5NjUe6Gs',
    }),
  })
  .meta({ id: 'CreatedRefund' });
export type CreatedRefund = z.infer<typeof createdRefundSchema>;

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
