/**
 * The building blocks every resource's operations share: tags, who may call (security), the error lists,
 * the `{ data, error }` envelopes, the headers, and `operation()`, which turns code samples into Redoc's
 * x-codeSamples and gives every x-api-key operation the Chargeport-Version request header and the
 * Chargeport-Version and RateLimit-* response headers. The resources' paths are in the register-*-paths.ts files beside this one.
 */
import { type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { errorSchema } from '@/lib/charges/schemas';
import { ERROR_STATUS, type ErrorCode } from '@/lib/errors';

export const TAGS = {
  charges: 'Charges',
  refunds: 'Refunds',
  endpoints: 'Webhook endpoints',
  events: 'Events',
  testHelpers: 'Test helpers',
  health: 'Health',
  onramp: 'On-ramp',
  inApp: 'In-app (Sign in with Chargeport)',
  webhooks: 'Webhook events',
} as const;

type Security = Record<string, string[]>[];
export const SECRET: Security = [{ SecretKey: [] }];
export const SECRET_OR_PUBLISHABLE: Security = [{ SecretKey: [] }, { PublishableKey: [] }];
export const NO_AUTH: Security = [];
export const METRICS_TOKEN: Security = [{ MetricsToken: [] }];

const AUTH_ERRORS = ['missing_api_key', 'invalid_api_key', 'unsupported_api_version', 'rate_limited', 'internal_error'] as const;
/** Routes a publishable key may call: from a browser origin the key does not allow, origin_not_allowed. */
export const PUBLISHABLE_KEY_ERRORS = [...AUTH_ERRORS, 'origin_not_allowed'] as const;
/** Routes only secret keys may call: a publishable key is key_not_permitted. */
export const SECRET_KEY_ERRORS = [...AUTH_ERRORS, 'key_not_permitted'] as const;
export const BODY_ERRORS = ['invalid_request', 'invalid_json', 'payload_too_large', 'unsupported_media_type'] as const;

export const chargeIdParam = z.object({
  chargeId: z.string().meta({ description: 'A charge id (ch_…).', example: 'ch_4Vd9TQ1aQm2xA7bC3dE5fG' }),
});
export const endpointIdParam = z.object({
  endpointId: z.string().meta({ description: 'A webhook endpoint id (we_…).', example: 'we_4Vd9TQ1aQm2xA7bC3dE5fG' }),
});
export const idempotencyHeader = (description: string) =>
  z.object({ 'Idempotency-Key': z.string().max(255).optional().meta({ description, example: 'order-1001' }) });

export const envelope = <T extends z.ZodType>(data: T, id: string) =>
  z.object({ data, error: z.null() }).meta({ id, description: 'Success: `data` is set, `error` is null.' });
const errorEnvelope = z
  .object({ data: z.null(), error: errorSchema })
  .meta({ id: 'ErrorResponse', description: 'Failure: `data` is null, `error` says what went wrong.' });

export const REQUEST_ID_HEADER = { $ref: '#/components/headers/RequestId' };
const RETRY_AFTER_HEADER = { $ref: '#/components/headers/RetryAfter' };
const REPLAYED_HEADER = { $ref: '#/components/headers/IdempotentReplayed' };

/** One response per HTTP status, listing its codes, with an example of the first. */
export function errorResponses(codes: readonly ErrorCode[]): Record<string, ResponseConfig> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: `error.code: ${list.map((code) => `\`${code}\``).join(', ')}`,
        headers: {
          'x-request-id': REQUEST_ID_HEADER,
          ...(status === 429 ? { 'Retry-After': RETRY_AFTER_HEADER } : {}),
        } as Record<string, { $ref: string }>,
        content: {
          'application/json': {
            schema: errorEnvelope,
            example: { data: null, error: ERROR_EXAMPLES[list[0]!] ?? { code: list[0]!, message: 'See the error table.' } },
          },
        },
      },
    ]),
  );
}

const ERROR_EXAMPLES: Partial<Record<ErrorCode, { code: ErrorCode; message: string; param?: string }>> = {
  invalid_request: { code: 'invalid_request', message: 'chargeData.symbol: is required', param: 'chargeData.symbol' },
  missing_api_key: { code: 'missing_api_key', message: 'Send your API key in the x-api-key header.' },
  key_not_permitted: {
    code: 'key_not_permitted',
    message: 'Publishable keys can only create and read charges. Use a secret key from your server.',
  },
  origin_not_allowed: {
    code: 'origin_not_allowed',
    message:
      "This publishable key may not be used from https://attacker.example. Add the origin to the key's allowed origins in the dashboard (Settings → API Keys).",
  },
  not_found: { code: 'not_found', message: 'No charge ch_4Vd9TQ1aQm2xA7bC3dE5fG for this key.' },
  unsupported_chain: {
    code: 'unsupported_chain',
    message:
      'Unknown chain "ETHEREUM". Supported chains: POLYGON, POLYGON_AMOY, BSC, BSC_TESTNET, DFK, DFK_TESTNET, SOLANA, SOLANA_DEVNET.',
    param: 'chargeData.chain',
  },
  rate_limited: { code: 'rate_limited', message: 'Too many requests for this API key: retry after 3 seconds.' },
  test_key_required: { code: 'test_key_required', message: 'Test helpers work with test API keys (cp_test_…) only.' },
};

export function ok(description: string, schema: z.ZodType, example: unknown, options: { replayable?: boolean } = {}): ResponseConfig {
  return {
    description,
    headers: { 'x-request-id': REQUEST_ID_HEADER, ...(options.replayable ? { 'Idempotent-Replayed': REPLAYED_HEADER } : {}) },
    content: { 'application/json': { schema, example: { data: example, error: null } } },
  };
}

export const json = <T extends z.ZodType>(schema: T, example: unknown) => ({ 'application/json': { schema, example } });

interface Samples {
  curl: string;
  node: string;
  web?: string;
}

function codeSamples(samples: Samples) {
  return [
    { lang: 'Shell', label: 'curl', source: samples.curl },
    { lang: 'JavaScript', label: 'Node SDK', source: samples.node },
    ...(samples.web ? [{ lang: 'JavaScript', label: 'Web SDK', source: samples.web }] : []),
  ];
}

export const NODE_CLIENT =
  "import { Chargeport } from '@chargeport/node';\nconst chargeport = new Chargeport({ apiKey: process.env.CHARGEPORT_SECRET_KEY });\n";

/** What every merchant API (x-api-key) operation takes and answers with: the API version and the key's budget. */
const API_VERSION_PARAMETER = { $ref: '#/components/parameters/ChargeportVersion' };
const KEY_RESPONSE_HEADERS = {
  'Chargeport-Version': { $ref: '#/components/headers/ChargeportVersion' },
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
};

function withKeyHeaders(route: RouteConfig): RouteConfig {
  const usesKey = route.security?.some((scheme) => 'SecretKey' in scheme || 'PublishableKey' in scheme);
  if (!usesKey) return route;
  const responses = Object.fromEntries(
    Object.entries(route.responses).map(([status, response]) => [
      status,
      '$ref' in response ? response : { ...response, headers: { ...response.headers, ...KEY_RESPONSE_HEADERS } },
    ]),
  );
  // The spread widens the 3.0/3.1 parameter union the type is declared with; the elements are unchanged.
  const parameters = [...(route.parameters ?? []), API_VERSION_PARAMETER] as RouteConfig['parameters'];
  return { ...route, parameters, responses };
}

export function operation(route: RouteConfig & { samples: Samples }): RouteConfig {
  const { samples, ...rest } = route;
  return { ...withKeyHeaders(rest), 'x-codeSamples': codeSamples(samples) };
}
