/** A charge's refunds: create (to the payer, or a claim link) and list. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { createdRefundSchema, createRefundBodySchema, refundListSchema } from '@/lib/refunds/schemas';
import { exampleRefund } from '../openapi-examples';
import {
  BODY_ERRORS,
  NODE_CLIENT,
  SECRET,
  SECRET_KEY_ERRORS,
  TAGS,
  chargeIdParam,
  envelope,
  errorResponses,
  idempotencyHeader,
  json,
  ok,
  operation,
} from './operation';

export function registerRefundPaths(registry: OpenAPIRegistry) {
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/charges/{chargeId}/refunds',
      operationId: 'createRefund',
      tags: [TAGS.refunds],
      summary: 'Refund a charge',
      description:
        "Refunds (part of) what a charge received — over- and late payments included — back to whoever paid: the address that sent the payment (for a balance payment, the payer's Chargeport wallet). `toAddress` may only name an address that paid the charge (else 403 refund_destination_not_payer: an owner may refund elsewhere from the dashboard, with step-up). When the sender is not the payer or is not known (a card payment delivered by an on-ramp provider, a contract, several senders), the refund is a claim link: status `awaiting_claim`, its amount reserved, and `claimUrl` in this answer only — forward it to the payer (we e-mail it when we know them), who picks an address or their Chargeport balance; unclaimed after REFUND_CLAIM_TTL_DAYS (30) it expires and the amount is refundable again. A charge still `pending` or `processing` cannot be refunded (409 charge_not_settled). Paid from the charge's deposit address before its sweep, from your merchant wallet after it; the network fee is covered. The refund is `pending`, then `submitted`, then `succeeded` or `failed` (webhooks refund.created, refund.claimed, refund.expired, refund.succeeded, refund.failed). Send an Idempotency-Key header to retry safely: the same key is the same refund.",
      security: SECRET,
      request: {
        params: chargeIdParam,
        headers: idempotencyHeader('Same key → the same refund; same key with another amount or destination → 409.'),
        body: { required: false, content: json(createRefundBodySchema, { amount: '4.99', reason: 'Customer request' }) },
      },
      responses: {
        200: ok('The refund (with `claimUrl` when it is a claim link).', envelope(createdRefundSchema, 'RefundResponse'), exampleRefund(), {
          replayable: true,
        }),
        ...errorResponses([
          ...SECRET_KEY_ERRORS,
          ...BODY_ERRORS,
          'invalid_amount',
          'invalid_address',
          'not_found',
          'refund_exceeds_refundable',
          'refund_destination_not_payer',
          'charge_not_settled',
          'refund_not_possible',
          'idempotency_conflict',
          'insufficient_balance',
          'gas_sponsorship_limit',
          'gas_tank_empty',
          'chain_unavailable',
        ]),
      },
      samples: {
        curl: `curl -s $CHARGEPORT_URL/api/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG/refunds \\\n  -H "x-api-key: $CHARGEPORT_SECRET_KEY" -H 'Content-Type: application/json' \\\n  -H 'Idempotency-Key: refund-1001' -d '{"amount":"4.99","reason":"Customer request"}'`,
        node: `${NODE_CLIENT}\nconst refund = await chargeport.refunds.create('ch_4Vd9TQ1aQm2xA7bC3dE5fG', { amount: '4.99', reason: 'Customer request' });`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/charges/{chargeId}/refunds',
      operationId: 'listRefunds',
      tags: [TAGS.refunds],
      summary: "List a charge's refunds",
      description: 'The refunds of a charge, oldest first, and what can still be refunded.',
      security: SECRET,
      request: { params: chargeIdParam },
      responses: {
        200: ok('The refunds.', envelope(refundListSchema, 'RefundListResponse'), {
          object: 'list',
          data: [exampleRefund()],
          refundable: { amount: '0', amountBaseUnits: '0' },
        }),
        ...errorResponses([...SECRET_KEY_ERRORS, 'not_found']),
      },
      samples: {
        curl: 'curl -s $CHARGEPORT_URL/api/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG/refunds -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nconst { data, refundable } = await chargeport.refunds.list('ch_4Vd9TQ1aQm2xA7bC3dE5fG');`,
      },
    }),
  );
}
