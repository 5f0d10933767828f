/** The on-ramp's public routes: a quote, an order's live view (both for the pages), and the providers' webhooks. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { onrampOrderSchema, onrampQuoteQuerySchema, onrampQuoteSchema, providerWebhookAnswerSchema } from '@/lib/onramp/schemas';
import { NO_AUTH, TAGS, envelope, errorResponses, json, ok, operation } from './operation';

const exampleQuote = {
  providerId: 'sandbox',
  tokenSymbol: 'USDC',
  cryptoAmount: '25',
  cryptoBaseUnits: '25000000',
  fiatCurrency: 'USD',
  rate: '1.00',
  subtotal: '25.00',
  providerFee: '1.00',
  networkFee: '0.05',
  total: '26.05',
  minimum: { fiat: '20.00', crypto: '20' },
  belowMinimum: false,
  expiresAt: '2026-11-27T12:01:00.000Z',
};

const exampleOrder = {
  id: 'onr_4Vd9TQ1aQm2xA7bC3dE5fG',
  status: 'completed',
  providerName: 'Sandbox',
  chain: 'POLYGON',
  chainName: 'Polygon',
  tokenSymbol: 'USDC',
  cryptoAmount: '25',
  requestedAmount: '25',
  raisedToMinimum: false,
  deliveredAmount: '25',
  walletAddress: '0x2B5AD5c4795c026514f8317c7a215E218DcCD6cF',
  walletLabel: null,
  fiatTotal: '26.05',
  fiatCurrency: 'USD',
  paymentMethod: 'card',
  deliveryTxHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  explorerUrl: 'https://polygonscan.com/tx/0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
  failureReason: null,
  checkoutUrl: null,
  chargeId: null,
  createdAt: '2026-11-27T12:00:00.000Z',
  timeline: [{ toStatus: 'completed', at: '2026-11-27T12:03:00.000Z', providerStatus: 'completed' }],
};

export function registerOnrampPaths(registry: OpenAPIRegistry) {
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/onramp/quote',
      operationId: 'quoteOnramp',
      tags: [TAGS.onramp],
      summary: 'Quote a purchase at an on-ramp provider',
      description:
        "What buying tokens with money costs at one provider, in the buyer's country (the country the page chose, else the request's geolocation): fees, total and the method's minimum. The on-ramp page calls it; no key. Rate-limited per IP address.",
      security: NO_AUTH,
      request: { query: onrampQuoteQuerySchema },
      responses: {
        200: ok('The quote.', envelope(onrampQuoteSchema, 'OnrampQuoteResponse'), exampleQuote),
        ...errorResponses([
          'invalid_request',
          'provider_unavailable',
          'invalid_amount',
          'quote_unavailable',
          'rate_limited',
          'internal_error',
        ]),
      },
      samples: {
        curl: "curl -s '$CHARGEPORT_URL/api/onramp/quote?provider=sandbox&chain=POLYGON&token=USDC&method=card&amount_kind=usd&amount=25'",
        node: 'const quote = await (await fetch(`${url}/api/onramp/quote?provider=sandbox&chain=POLYGON&token=USDC&method=card&amount_kind=usd&amount=25`)).json();',
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/onramp/orders/{orderId}',
      operationId: 'getOnrampOrder',
      tags: [TAGS.onramp],
      summary: "An on-ramp order's live view",
      description: "The order page's view of an order: anyone with the (unguessable) order id may read it, like a receipt. No key.",
      security: NO_AUTH,
      request: {
        params: z.object({
          orderId: z.string().meta({ description: 'An on-ramp order id (onr_…).', example: 'onr_4Vd9TQ1aQm2xA7bC3dE5fG' }),
        }),
      },
      responses: {
        200: ok('The order.', envelope(onrampOrderSchema, 'OnrampOrderResponse'), exampleOrder),
        ...errorResponses(['not_found', 'internal_error']),
      },
      samples: {
        curl: 'curl -s $CHARGEPORT_URL/api/onramp/orders/onr_4Vd9TQ1aQm2xA7bC3dE5fG',
        node: 'const order = await (await fetch(`${url}/api/onramp/orders/${orderId}`)).json();',
      },
    }),
  );
  const answer = (description: string, example: z.infer<typeof providerWebhookAnswerSchema>) => ({
    description,
    content: json(providerWebhookAnswerSchema, example),
  });
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/onramp/webhooks/{providerId}',
      operationId: 'receiveOnrampProviderWebhook',
      tags: [TAGS.onramp],
      summary: "An on-ramp provider's order webhook",
      description:
        "Called by the on-ramp providers (MoonPay, Transak, the sandbox provider), never by an integrator: the provider's own payload, signed its way (the signature covers the exact bytes), at most 256 KiB. The answer is not the `{ data, error }` envelope but what the provider reads: a 2xx stops its retries.",
      security: NO_AUTH,
      request: {
        params: z.object({ providerId: z.string().meta({ description: 'The provider (moonpay, transak, sandbox).', example: 'moonpay' }) }),
        body: {
          required: true,
          content: {
            'application/json': {
              schema: z.looseObject({}).meta({ description: "The provider's own payload." }),
              example: {
                type: 'transaction_updated',
                data: { id: 'moonpay-tx-1', externalTransactionId: 'onr_4Vd9TQ1aQm2xA7bC3dE5fG', status: 'completed' },
              },
            },
          },
        },
      },
      responses: {
        200: answer('Accepted (applied, unchanged, a duplicate, an unknown order, or an authentic event of no interest).', {
          received: true,
          outcome: 'applied',
        }),
        400: answer('The signature is missing or malformed.', { received: false, outcome: 'rejected' }),
        401: answer('The signature does not verify.', { received: false, outcome: 'rejected' }),
        404: answer('No such provider here.', { received: false, outcome: 'unknown_provider' }),
        ...errorResponses(['payload_too_large']),
      },
      samples: {
        curl: "curl -s -X POST $CHARGEPORT_URL/api/onramp/webhooks/moonpay -H 'Moonpay-Signature-V2: t=…,s=…' -d @event.json",
        node: '// Sent by the provider; nothing to call.',
      },
    }),
  );
}
