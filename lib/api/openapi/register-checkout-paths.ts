/** The hosted checkout's live status, polled or streamed (no key: the charge id is the capability). */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { checkoutStatusSchema } from '@/lib/payments/schemas';
import { NO_AUTH, REQUEST_ID_HEADER, TAGS, chargeIdParam, envelope, errorResponses, ok, operation } from './operation';

const exampleStatus = {
  chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG',
  status: 'pending',
  total: '4.99',
  received: '0',
  due: '4.99',
  symbol: 'USDC',
  expiresAt: '2026-11-27T13:00:00.000Z',
  successUrl: 'https://game.example/success',
  payments: [],
  payable: true,
  inFlight: null,
  deposit: {
    address: '0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF',
    uri: 'ethereum:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359@137/transfer?address=0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF&uint256=4990000',
  },
};

export function registerCheckoutPaths(registry: OpenAPIRegistry) {
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/checkout/{chargeId}/status',
      operationId: 'getCheckoutStatus',
      tags: [TAGS.charges],
      summary: "The hosted checkout's live status",
      description:
        "What the hosted checkout shows while the charge is paid: status, amounts received and due, each payment with its confirmations, where to pay, and whether it may be paid now (`payable`). No key: the charge id is the capability the `paymentUrl` carries. Any origin may read it (the C# SDK polls it from Unity WebGL). A merchant's server reads the charge with GET /api/charges/{chargeId} instead.",
      security: NO_AUTH,
      request: { params: chargeIdParam },
      responses: {
        200: ok('The status.', envelope(checkoutStatusSchema, 'CheckoutStatusResponse'), exampleStatus),
        ...errorResponses(['not_found', 'internal_error']),
      },
      samples: {
        curl: 'curl -s $CHARGEPORT_URL/api/checkout/ch_4Vd9TQ1aQm2xA7bC3dE5fG/status',
        node: 'const { data } = await (await fetch(`${url}/api/checkout/${chargeId}/status`)).json();',
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/checkout/{chargeId}/events',
      operationId: 'streamCheckoutStatus',
      tags: [TAGS.charges],
      summary: "The hosted checkout's live status (server-sent events)",
      description:
        'The same status as GET /api/checkout/{chargeId}/status, as a `text/event-stream`: one `data:` message on connect and on every change, `: heartbeat` every 15 s; the stream ends after a final status. A few open streams per client address at most (else 429: poll the status route instead).',
      security: NO_AUTH,
      request: { params: chargeIdParam },
      responses: {
        200: {
          description: 'The stream. Each `data:` line is one CheckoutStatus as JSON.',
          headers: { 'x-request-id': REQUEST_ID_HEADER },
          content: {
            'text/event-stream': {
              schema: { type: 'string', description: 'Server-sent events; data is a CheckoutStatus.' },
              example: `retry: 3000\n\ndata: ${JSON.stringify(exampleStatus)}\n\n`,
            },
          },
        },
        ...errorResponses(['not_found', 'rate_limited', 'internal_error']),
      },
      samples: {
        curl: 'curl -N $CHARGEPORT_URL/api/checkout/ch_4Vd9TQ1aQm2xA7bC3dE5fG/events',
        node: 'const source = new EventSource(`${url}/api/checkout/${chargeId}/events`);\nsource.onmessage = (message) => console.log(JSON.parse(message.data).status);',
      },
    }),
  );
}
