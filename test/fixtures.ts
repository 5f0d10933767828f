/**
 * Test helpers: merchants with keys, charges made through the domain verb (createTestCharge, for tests of
 * other domains: lib/ never reaches up into app/), calling route handlers exactly as Next.js does (a Request
 * in, a Response out, checked against the OpenAPI document, for the routes' own tests), and counting what a
 * merchant has stored.
 */
import { randomUUID } from 'node:crypto';
import { count, eq, inArray } from 'drizzle-orm';
import { parse } from 'lossless-json';
import { authenticateApiKey } from '@/lib/api-keys/authenticate-api-key';
import { createApiKey } from '@/lib/api-keys/create-api-key';
import { parseOrThrow } from '@/lib/api/parse';
import { createCharge } from '@/lib/charges/create-charge';
import { createChargeBodySchema } from '@/lib/charges/schemas';
import { parseNumberExactly } from '@/lib/http/body';
import type { ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { resetEnvCache, rpcEnvName } from '@/lib/env';
import { chargeEvents, charges, depositAddresses, idempotencyKeys, type ChargeRow } from '@/lib/db/schema';
import { createMerchant } from '@/lib/onboarding/create-merchant';
import { randomBase62 } from '@/lib/ids';
import { isMethodNotAllowedHandler, notFoundRoute } from '@/lib/api/methods';
import { UNDOCUMENTED_ROUTES, routeOfHandler } from './api-routes';
import { openApiResponseValidator } from './openapi-responses';

export interface TestMerchant {
  id: string;
  testKey: string;
  liveKey?: string;
}

export async function newMerchant(options: { verified?: boolean; name?: string } = {}): Promise<TestMerchant> {
  const { merchant, keys } = await createMerchant({
    email: `m-${randomBase62(8).toLowerCase()}@example.test`,
    name: options.name ?? 'Test Studio',
    verified: options.verified ?? true,
  });
  return {
    id: merchant.id,
    testKey: keys.find((k) => k.mode === 'test')!.plaintext,
    liveKey: keys.find((k) => k.mode === 'live')?.plaintext,
  };
}

/**
 * A publishable key that may send buyers back to the fixtures' https://game.example (successUrl /
 * cancelUrl of usdcCharge and testCharge); no browser origin unless given.
 */
export async function newPublishableKey(
  merchantId: string,
  mode: 'test' | 'live' = 'test',
  origins: { allowedOrigins?: string[]; allowedRedirectOrigins?: string[] } = {},
): Promise<string> {
  return (
    await createApiKey({
      merchantId,
      mode,
      kind: 'publishable',
      allowedOrigins: origins.allowedOrigins ?? [],
      allowedRedirectOrigins: origins.allowedRedirectOrigins ?? ['https://game.example'],
    })
  ).plaintext;
}

export interface TestCharge {
  chargeId: string;
  /** The hosted checkout, as createCharge answers it. */
  paymentUrl: string;
  /** Where the payer sends the money; `reference` is the Solana Pay reference key (Solana only). */
  deposit: { address: string; reference: string | null };
  /** The stored charge: mode, chain, token, totalBaseUnits, items, destination, … */
  charge: ChargeRow;
}

/**
 * A charge made as POST /api/createCharge makes it, minus HTTP: the key authenticated as x-api-key is, the body
 * read as the route reads JSON (numbers kept exact) and parsed with its schema, the same createCharge verb with
 * the same ctx (app/api/createCharge/test-charge-fixture.test.ts holds the two alike). A refusal throws its AppError
 * (code, param, status, headers), so a test reads it with `appError(createTestCharge(…))`. Left out, as
 * transport concerns the route's own tests cover: rate limits, publishable-key origin checks, Idempotency-Key.
 */
export async function createTestCharge(options: { apiKey: string | undefined; body: unknown }): Promise<TestCharge> {
  const { merchant, apiKey } = await authenticateApiKey(options.apiKey ?? null);
  const input = parseOrThrow(createChargeBodySchema, parse(JSON.stringify(options.body), null, parseNumberExactly));
  const ctx = { merchant, apiKey, actor: `api_key:${apiKey.id}`, requestId: randomUUID() };
  const { chargeId, paymentUrl } = await createCharge({ ctx, input });
  const db = getDb();
  const [charge] = await db.select().from(charges).where(eq(charges.id, chargeId));
  const [deposit] = await db.select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
  return { chargeId, paymentUrl, deposit: { address: deposit!.address, reference: deposit!.reference }, charge: charge! };
}

type Handler = (request: Request, route: { params: Promise<Record<string, string>> }) => Promise<Response>;

export interface CallOptions {
  method?: string;
  path?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as is. */
  body?: unknown;
  params?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  json: { data: any; error: { code: string; message: string; param?: string } | null };
}

export async function callRoute(handler: Handler, options: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.apiKey) headers['x-api-key'] = options.apiKey;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const request = new Request(`http://localhost:3999${options.path ?? '/api/test'}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
  const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
  const json = await response.json();
  await expectDeclaredResponse(handler, {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: json,
    headers: response.headers,
  });
  return { status: response.status, headers: response.headers, json };
}

let validator: Promise<ReturnType<typeof openApiResponseValidator>> | undefined;

/**
 * Every response a test receives through callRoute is what the OpenAPI document declares for its route
 * and method (status, and the body's schema): else the test fails, naming the mismatch. Handlers no
 * route exports (a test's own) and the routes UNDOCUMENTED_ROUTES leaves out of the document are not
 * checked. Tests that call a handler with their own Request (streams, raw bodies) call this themselves.
 */
export async function expectDeclaredResponse(
  handler: Handler,
  response: { status: number; contentType: string | null; body: unknown; headers?: Headers },
) {
  validator ??= import('@/lib/api/openapi').then(({ buildOpenApiDocument }) =>
    openApiResponseValidator(buildOpenApiDocument('http://localhost:3999')),
  );
  const openApi = await validator;
  let problems: string[];
  if (isMethodNotAllowedHandler(handler) || handler === (notFoundRoute as unknown)) {
    const expected = isMethodNotAllowedHandler(handler) ? 405 : 404;
    problems = [
      ...(response.status === expected ? [] : [`answered ${response.status}, not ${expected}`]),
      ...openApi.errorEnvelopeProblems(response.body),
    ];
  } else {
    const found = await routeOfHandler(handler);
    if (!found || UNDOCUMENTED_ROUTES[found.route.path]?.openapi) return;
    problems = openApi.problems({ method: found.method, path: found.route.path, ...response });
  }
  if (problems.length) throw new Error(`OpenAPI response validation: ${problems.join('\n')}`);
}

/** How many charges, charge events and idempotency rows a merchant has: "a failed request stores nothing". */
export async function storedCounts(merchantId: string): Promise<{ charges: number; events: number; idempotencyKeys: number }> {
  const db = getDb();
  const ids = (await db.select({ id: charges.id }).from(charges).where(eq(charges.merchantId, merchantId))).map((r) => r.id);
  const [events] = ids.length ? await db.select({ n: count() }).from(chargeEvents).where(inArray(chargeEvents.chargeId, ids)) : [{ n: 0 }];
  const [idem] = await db.select({ n: count() }).from(idempotencyKeys).where(eq(idempotencyKeys.merchantId, merchantId));
  return { charges: ids.length, events: events!.n, idempotencyKeys: idem!.n };
}

export const NATIVE_EVM = '0x0000000000000000000000000000000000000000';
export const POLYGON_USDC = '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359';

/** A valid live USDC-on-Polygon body; override parts per test. */
export function usdcCharge(overrides: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  return {
    chargeData: {
      symbol: 'USDC',
      chain: 'POLYGON',
      tokenAddress: POLYGON_USDC,
      successUrl: 'https://game.example/success',
      cancelUrl: 'https://game.example/cancel',
      items: [{ name: 'Gem pack', image: 'https://game.example/gem.png', amount: '4.99', quantity: 1 }],
      ...overrides,
    },
    ...top,
  };
}

/** A valid test charge in the native token. */
export function testCharge(overrides: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  return {
    chargeData: {
      symbol: 'POL',
      chain: 'POLYGON',
      tokenAddress: NATIVE_EVM,
      successUrl: 'https://game.example/success',
      cancelUrl: 'https://game.example/cancel',
      items: [{ name: 'Sword', image: 'https://game.example/sword.png', amount: 0.1, quantity: 3 }],
      ...overrides,
    },
    isTest: true,
    ...top,
  };
}

/**
 * createCharge refuses chains nothing watches (no RPC URL). Tests that create charges on a chain the suite runs
 * no node for (Solana, BSC, …) mark it served with an RPC URL nothing listens on; those that talk to the chain
 * inject it where they do (LiteSVM, a private anvil).
 */
export function serveChainsWithoutNode(...chains: ChainName[]): void {
  for (const chain of chains) process.env[rpcEnvName(chain)] ??= 'http://127.0.0.1:9';
  resetEnvCache();
}
