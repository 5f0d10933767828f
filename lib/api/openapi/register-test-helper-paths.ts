/** Test helpers: pay a test charge from a funded sandbox payer (test keys only). */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { payTestChargeBodySchema, testPaymentSchema } from '@/lib/test-helpers/schemas';
import {
  BODY_ERRORS,
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

export function registerTestHelperPaths(registry: OpenAPIRegistry) {
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/test_helpers/charges/{chargeId}/pay',
      operationId: 'payTestCharge',
      tags: [TAGS.testHelpers],
      summary: 'Pay a test charge',
      description:
        "Makes the test-network payment of a test charge from a funded sandbox payer: a real transfer into the charge's deposit address on the test network (on a local development chain, the demo payer), which the chain watcher then sees like any payment — the charge goes `processing`, then `succeeded`, and your webhooks are sent. Pays what is still due, or `amount` (less → the charge stays underpaid; more → overpaid). Test keys and test charges only: a production key gets 403 `test_key_required`; a server that turned the helpers off (`TEST_HELPERS_ENABLED=false`, the default in production) answers 403 `forbidden`. A test network for which this server has no funded payer (`TEST_HELPERS_PAYER_KEY`) answers 503 `service_unavailable`.",
      security: SECRET,
      request: {
        params: chargeIdParam,
        headers: idempotencyHeader('Same key → the same payment again, never a second transfer.'),
        body: { required: false, content: json(payTestChargeBodySchema, { amount: '0.1' }) },
      },
      responses: {
        200: ok(
          'The transfer was mined; the watcher settles the charge within seconds.',
          envelope(testPaymentSchema, 'TestPaymentResponse'),
          {
            object: 'test_payment',
            chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG',
            chain: 'POLYGON_AMOY',
            txHash: '0x8f0d3a2c1e5b4d6f7a9b0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6f7',
            fromAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
            toAddress: '0x2546BcD3c84621e976D8185a91A922aE77ECEc30',
            amount: '0.3',
            amountBaseUnits: '300000000000000000',
          },
          { replayable: true },
        ),
        ...errorResponses([
          ...SECRET_KEY_ERRORS,
          ...BODY_ERRORS,
          'test_key_required',
          'forbidden',
          'not_found',
          'charge_not_payable',
          'invalid_amount',
          'idempotency_conflict',
          'service_unavailable',
          'chain_unavailable',
        ]),
      },
      samples: {
        curl: 'curl -s -X POST $CHARGEPORT_URL/api/test_helpers/charges/ch_4Vd9TQ1aQm2xA7bC3dE5fG/pay -H "x-api-key: $CHARGEPORT_TEST_KEY"',
        node: `import { Chargeport } from '@chargeport/node';\nconst chargeport = new Chargeport({ apiKey: process.env.CHARGEPORT_TEST_KEY });\nconst { chargeId } = await chargeport.charges.create({ chargeData: { chain: 'POLYGON', symbol: 'POL', tokenAddress: '0x0000000000000000000000000000000000000000', amount: '0.3' }, isTest: true });\nawait chargeport.testHelpers.payCharge(chargeId);\n// then wait for charge.succeeded on your webhook endpoint`,
      },
    }),
  );
}
