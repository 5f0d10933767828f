/** The in-app API an app calls with a "Sign in with Chargeport" access token: balances and payment requests. */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { createPaymentRequestSchema, paymentRequestSchema } from '@/lib/oauth/schemas';
import { BODY_ERRORS, TAGS, envelope, errorResponses, json, ok, operation } from './operation';

const POLYGON_USDC_EXAMPLE = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

/**
 * What an app calls with a "Sign in with Chargeport" access token (Authorization: Bearer), not an API
 * key: the user's balances and in-app pay. The OpenID endpoints themselves are described by discovery.
 */
export function registerOAuthPaths(registry: OpenAPIRegistry) {
  const TOKEN_ERRORS = ['invalid_access_token', 'insufficient_scope', 'rate_limited', 'internal_error'] as const;
  const walletHome = z
    .object({
      wallets: z.array(
        z.object({
          id: z.string(),
          family: z.string().meta({ example: 'evm' }),
          address: z.string(),
          chains: z.array(
            z.object({
              chain: z.string().meta({ example: 'POLYGON' }),
              displayName: z.string(),
              isTestnet: z.boolean(),
              status: z.enum(['ok', 'not_connected', 'unreachable']),
              tokens: z.array(
                z.object({
                  symbol: z.string(),
                  name: z.string(),
                  tokenAddress: z.string(),
                  isNative: z.boolean(),
                  baseUnits: z.string().nullable().meta({ description: 'Base units as a decimal string; null when unreadable' }),
                  amount: z.string().nullable().meta({ example: '12.5' }),
                  usd: z.string().optional().meta({ example: '12.50' }),
                }),
              ),
            }),
          ),
        }),
      ),
      totalUsd: z.string().meta({ example: '1234.56' }),
      isTotalPartial: z.boolean(),
    })
    .meta({ id: 'WalletBalances' });
  const exampleRequest = {
    id: 'opr_4fRq9TQ1aQm2xA7bC3dE5f',
    chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG',
    status: 'pending',
    chargeStatus: 'pending',
    userCode: 'BCDF-GHJK',
    verificationUri: 'https://pay.example.com/oauth/pay',
    verificationUriComplete: 'https://pay.example.com/oauth/pay?code=BCDF-GHJK',
    expiresAt: '2026-11-24T12:10:00.000Z',
    interval: 2,
    txHash: null,
  };
  const bearer = `-H "Authorization: Bearer $ACCESS_TOKEN"`;
  const fetchSample = (method: string, path: string, body?: string) =>
    `// The app holds the user's access token ("Sign in with Chargeport"), never an API key.\nconst res = await fetch(\`\${CHARGEPORT_URL}${path}\`, {\n  method: '${method}',\n  headers: { Authorization: \`Bearer \${accessToken}\`${body ? ", 'Content-Type': 'application/json'" : ''} },${body ? `\n  body: JSON.stringify(${body}),` : ''}\n});`;
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/oauth/balances',
      operationId: 'getOAuthBalances',
      tags: [TAGS.inApp],
      summary: "The signed-in user's addresses and balances",
      description: 'Needs the `wallet:read` scope.',
      security: [{ ChargeportOAuth: ['wallet:read'] }],
      responses: {
        200: ok('Wallets, per chain and token.', envelope(walletHome, 'WalletBalancesResponse'), {
          wallets: [
            {
              id: 'wal_4Vd9TQ1aQm2xA7bC3dE5fG',
              family: 'evm',
              address: '0x8ba1f109551bD432803012645Ac136ddd64DBA72',
              chains: [
                {
                  chain: 'POLYGON',
                  displayName: 'Polygon',
                  isTestnet: false,
                  status: 'ok',
                  tokens: [
                    {
                      symbol: 'USDC',
                      name: 'USD Coin',
                      tokenAddress: POLYGON_USDC_EXAMPLE,
                      isNative: false,
                      baseUnits: '12500000',
                      amount: '12.5',
                      usd: '12.50',
                    },
                  ],
                },
              ],
            },
          ],
          totalUsd: '12.50',
          isTotalPartial: false,
        }),
        ...errorResponses([...TOKEN_ERRORS]),
      },
      samples: {
        curl: `curl -s $CHARGEPORT_URL/api/oauth/balances ${bearer}`,
        node: fetchSample('GET', '/api/oauth/balances'),
        web: `const balances = await chargeport.getBalances(); // after chargeport.signIn()`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'post',
      path: '/api/oauth/payment-requests',
      operationId: 'createPaymentRequest',
      tags: [TAGS.inApp],
      summary: "Ask the signed-in user to pay one of this app's merchant's charges",
      description:
        "Needs the `payments` scope. The user confirms with the PIN on Chargeport, never in the app: open `verificationUriComplete` in a popup (web), or show `userCode` and `verificationUri` (games, devices). Poll the request until `status` leaves pending. Another merchant's charge answers not_found. Asking again for the same charge returns the pending request.",
      security: [{ ChargeportOAuth: ['payments'] }],
      request: { body: { required: true, content: json(createPaymentRequestSchema, { chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG' }) } },
      responses: {
        201: { ...ok('The pending request.', envelope(paymentRequestSchema, 'PaymentRequestResponse'), exampleRequest) },
        ...errorResponses([...TOKEN_ERRORS, ...BODY_ERRORS, 'not_found', 'charge_not_payable']),
      },
      samples: {
        curl: `curl -s $CHARGEPORT_URL/api/oauth/payment-requests ${bearer} \\\n  -H 'Content-Type: application/json' -d '{"chargeId":"ch_4Vd9TQ1aQm2xA7bC3dE5fG"}'`,
        node: fetchSample('POST', '/api/oauth/payment-requests', "{ chargeId: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG' }"),
        web: `const result = await chargeport.pay('ch_4Vd9TQ1aQm2xA7bC3dE5fG'); // opens Chargeport's PIN popup`,
      },
    }),
  );
  registry.registerPath(
    operation({
      method: 'get',
      path: '/api/oauth/payment-requests/{requestId}',
      operationId: 'getPaymentRequest',
      tags: [TAGS.inApp],
      summary: 'A payment request (poll every `interval` seconds)',
      description: 'Needs the `payments` scope; only the app and user that created it see it.',
      security: [{ ChargeportOAuth: ['payments'] }],
      request: { params: z.object({ requestId: z.string().meta({ example: 'opr_4fRq9TQ1aQm2xA7bC3dE5f' }) }) },
      responses: {
        200: ok('The request.', envelope(paymentRequestSchema, 'PaymentRequestResponse'), { ...exampleRequest, status: 'confirmed' }),
        ...errorResponses([...TOKEN_ERRORS, 'not_found']),
      },
      samples: {
        curl: `curl -s $CHARGEPORT_URL/api/oauth/payment-requests/opr_4fRq9TQ1aQm2xA7bC3dE5f ${bearer}`,
        node: fetchSample('GET', '/api/oauth/payment-requests/opr_4fRq9TQ1aQm2xA7bC3dE5f'),
      },
    }),
  );
}
