/** The charges' operations: create (in tokens or US dollars), retrieve, list, cancel. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import {
  chargeListSchema,
  chargeSchema,
  createChargeBodySchema,
  createChargeResultSchema,
  listChargesQuerySchema,
} from '@/lib/charges/schemas';
import {
  exampleCharge,
  exampleCreateChargeRequest,
  exampleCreateChargeResult,
  examplePaidCharge,
  exampleUsdPricedRequest,
} from '../openapi-examples';
import {
  BODY_ERRORS,
  NODE_CLIENT,
  PUBLISHABLE_KEY_ERRORS,
  SECRET,
  SECRET_KEY_ERRORS,
  SECRET_OR_PUBLISHABLE,
  TAGS,
  chargeIdParam,
  envelope,
  errorResponses,
  idempotencyHeader,
  ok,
  operation,
} from './operation';

export function registerChargePaths(registry: OpenAPIRegistry) {
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/createCharge',
      operationId: 'createCharge',
      tags: [TAGS.charges],
      summary: 'Create a charge',
      description:
        "Creates a charge for the merchant that owns the key and returns `{ data: { chargeId, paymentUrl }, error: null }` (200), nothing more — read the charge with GET /api/charges/{chargeId}: send the buyer to `paymentUrl`, the hosted checkout (or open it with the web SDK's `pay()`). A test key makes test charges (on the chain's test network, native token only); a production key makes live charges. Price in tokens (`items` or `amount`) or in US dollars (`pricing`). Send an Idempotency-Key header to retry safely. Publishable keys may call this from a browser, from the origins the key allows (else 403 origin_not_allowed), but cannot set toAddress or isDirectTransfer, and successUrl/cancelUrl must be on the key's redirect origins (else 403 redirect_not_allowed).",
      security: SECRET_OR_PUBLISHABLE,
      request: {
        headers: idempotencyHeader('Same key + same body → the same response again (kept ≥ 24 h); same key + other body → 409.'),
        body: {
          required: true,
          content: {
            'application/json': {
              schema: createChargeBodySchema,
              examples: {
                tokens: { summary: 'Priced in USDC', value: exampleCreateChargeRequest() },
                usd: { summary: 'Priced in US dollars, paid in POL', value: exampleUsdPricedRequest() },
              },
            },
          },
        },
      },
      responses: {
        200: ok(
          'Charge created: its id and the hosted checkout URL (`paymentUrl`).',
          envelope(createChargeResultSchema, 'CreateChargeResponse'),
          exampleCreateChargeResult(),
          {
            replayable: true,
          },
        ),
        ...errorResponses([
          ...PUBLISHABLE_KEY_ERRORS,
          ...BODY_ERRORS,
          'unsupported_chain',
          'chain_not_configured',
          'unsupported_token',
          'invalid_address',
          'invalid_amount',
          'amount_mismatch',
          'amount_below_minimum',
          'price_unavailable',
          'test_key_required',
          'live_key_required',
          'verification_required',
          'key_not_permitted',
          'redirect_not_allowed',
          'open_charge_limit',
          'idempotency_conflict',
        ]),
      },
      samples: {
        curl: `curl -s ${'$CHARGEPORT_URL'}/api/createCharge \\\n  -H "x-api-key: $CHARGEPORT_SECRET_KEY" -H 'Content-Type: application/json' \\\n  -H 'Idempotency-Key: order-1001' \\\n  -d '${JSON.stringify(exampleCreateChargeRequest())}'`,
        node: `${NODE_CLIENT}\nconst { chargeId, paymentUrl } = await chargeport.charges.create({\n  chain: 'POLYGON',\n  symbol: 'USDC',\n  tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',\n  items: [{ name: 'Gem pack', amount: '4.99', quantity: 1 }],\n  metadata: { orderId: '1001' },\n});\n// or priced in US dollars:\nawait chargeport.charges.create({ chargeData: { chain: 'POLYGON', symbol: 'POL', tokenAddress: '0x0000000000000000000000000000000000000000', pricing: { currency: 'USD', amount: '4.99' } } });`,
        web: `import { Chargeport } from '@chargeport/web';\nconst chargeport = new Chargeport({ apiKey: 'cp_pub_live_…', baseUrl: 'https://pay.example.com' });\nconst { paymentUrl } = await chargeport.createCharge({\n  chain: 'POLYGON', symbol: 'USDC', tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',\n  items: [{ name: 'Gem pack', amount: '4.99', quantity: 1 }],\n});\nlocation.assign(paymentUrl);`,
      },
    }),
  );

  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/charges/{chargeId}',
      operationId: 'getCharge',
      tags: [TAGS.charges],
      summary: 'Retrieve a charge',
      description:
        "One charge of the key's merchant and mode, with its timeline and payments. Other merchants' charges are 404. A publishable key may read it from the origins the key allows (else 403 origin_not_allowed).",
      security: SECRET_OR_PUBLISHABLE,
      request: { params: chargeIdParam },
      responses: {
        200: ok('The charge.', envelope(chargeSchema, 'ChargeResponse'), examplePaidCharge()),
        ...errorResponses([...PUBLISHABLE_KEY_ERRORS, 'not_found']),
      },
      samples: {
        curl: 'curl -s $CHARGEPORT_URL/api/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nconst charge = await chargeport.charges.retrieve('ch_4Vd9TQ1aQm2xA7bC3dE5fG');\nif (charge.status === 'succeeded') deliver(charge.metadata.orderId);`,
        web: "const charge = await chargeport.getCharge('ch_4Vd9TQ1aQm2xA7bC3dE5fG');",
      },
    }),
  );

  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/charges',
      operationId: 'listCharges',
      tags: [TAGS.charges],
      summary: 'List charges',
      description:
        "The key's charges, newest first. Page with `starting_after` = the last id of the previous page while `has_more` is true (the Node SDK's `charges.list()` does it for you).",
      security: SECRET,
      request: { query: listChargesQuerySchema },
      responses: {
        200: ok('A page of charges.', envelope(chargeListSchema, 'ChargeListResponse'), {
          object: 'list',
          data: [exampleCharge()],
          has_more: false,
        }),
        ...errorResponses([...SECRET_KEY_ERRORS, 'invalid_request', 'test_key_required', 'live_key_required']),
      },
      samples: {
        curl: 'curl -s \'$CHARGEPORT_URL/api/charges?limit=20&status=succeeded\' -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nfor await (const charge of chargeport.charges.list({ status: 'succeeded' })) {\n  console.log(charge.id, charge.amount);\n}`,
      },
    }),
  );

  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/charges/{chargeId}/cancel',
      operationId: 'cancelCharge',
      tags: [TAGS.charges],
      summary: 'Cancel a pending charge',
      description: 'Only a `pending` charge with no payment in flight can be canceled; its checkout stops offering ways to pay.',
      security: SECRET,
      request: { params: chargeIdParam },
      responses: {
        200: ok('The canceled charge.', envelope(chargeSchema, 'CanceledChargeResponse'), exampleCharge({ status: 'canceled' })),
        ...errorResponses([...SECRET_KEY_ERRORS, 'not_found', 'charge_not_cancelable', 'payment_in_progress']),
      },
      samples: {
        curl: 'curl -s -X POST $CHARGEPORT_URL/api/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG/cancel -H "x-api-key: $CHARGEPORT_SECRET_KEY"',
        node: `${NODE_CLIENT}\nawait chargeport.charges.cancel('ch_4Vd9TQ1aQm2xA7bC3dE5fG');`,
      },
    }),
  );
}
