/**
 * "Bad input gets a clear error and changes nothing", held across every merchant API operation at once.
 *
 * The operations come from the route table (test/api-routes.ts: every app/api/**\/route.ts and its methods)
 * and what each reads from the OpenAPI document (lib/api/openapi.ts): an operation secured by a secret key
 * (`SecretKey`) is in scope, and it is sent, as the route's own tests would not think to:
 *  - a JSON body (`requestBody`): a body that is not JSON; JSON that is not an object (`[]`, `null`, `"x"`,
 *    `42`); an object with an unknown field only; `{}` when the body has required fields. The path ids are
 *    ones that exist, so the body is what is refused.
 *  - path ids (`in: path`): one of the right form that does not exist, and malformed ones (very long,
 *    unicode, `../`, NUL: a `%00` in the URL reaches the handler decoded). The body is the document's example.
 *  - query parameters (`in: query`): an unknown parameter, and values no parameter accepts.
 * Each answer must be a 4xx declared for the operation (validated against the document as `callRoute` does),
 * the envelope `{ data: null, error: { code, message } }` with a code of the error table at its status, a
 * message that says what is wrong in a few words, and nothing the merchant owns written or changed
 * (`merchantRows`: every table with the merchant's rows, before and after).
 *
 * A new secret-key operation is covered without a line here; a path parameter the fixtures do not know
 * fails until `EXISTING` / `ID_KINDS` name it. Operations not authenticated with a secret key are out of
 * scope and listed in `OUT_OF_SCOPE` with the reason (the test fails on one that is neither).
 *
 * No refusal here needs a chain: every case is refused before anything is sent or read on chain (the
 * charge is a test charge made through the verb, the endpoint is made through its verb).
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { getDb } from '@/lib/db/client';
import { ERROR_STATUS, type ErrorCode } from '@/lib/errors';
import { newId, type IdKind } from '@/lib/ids';
import { createWebhookEndpoint } from '@/lib/webhooks/create-webhook-endpoint';
import { loadApiRoutes, type ApiMethod } from '@/test/api-routes';
import { createTestCharge, expectDeclaredResponse, newMerchant, testCharge, type TestMerchant } from '@/test/fixtures';

/**
 * Operations of the route table not authenticated with a secret key, by `METHOD path`, and why they are
 * not held here (the NUL and wrong-type fixes this test led to are at the shared boundary, so they get them
 * too: lib/http/refuse-nul-characters.ts, lib/http/zod-to-app-error.ts).
 */
const OUT_OF_SCOPE: Record<string, string> = {
  'GET /api/auth/{...nextauth}': "next-auth's own endpoints (sign-in, callbacks, session): not the merchant API",
  'POST /api/auth/{...nextauth}': "next-auth's own endpoints (sign-in, callbacks, session): not the merchant API",
  'POST /api/charges/{chargeId}/pay': "the checkout's pay-from-balance button: a consumer's session cookie and PIN",
  'GET /api/checkout/{chargeId}/status': "public (the id is the capability): the hosted checkout's view",
  'GET /api/checkout/{chargeId}/events': "public (the id is the capability): the hosted checkout's event stream",
  'GET /api/health': 'public probe, reads no input',
  'GET /api/health/ready': 'public probe, reads no input',
  'GET /api/health/live': 'public probe, reads no input',
  'GET /api/metrics': 'METRICS_TOKEN bearer, reads no input',
  'GET /api/openapi.json': 'public document, reads no input',
  'GET /api/oauth/balances': 'OAuth access token (Sign in with Chargeport), not an API key',
  'POST /api/oauth/payment-requests': 'OAuth access token (Sign in with Chargeport), not an API key',
  'GET /api/oauth/payment-requests/{requestId}': 'OAuth access token (Sign in with Chargeport), not an API key',
  'GET /api/onramp/quote': "public: the on-ramp page's quote (app/api/onramp/quote/quote.test.ts)",
  'GET /api/onramp/orders/{orderId}': 'public (the id is the capability): the order page',
  'POST /api/onramp/webhooks/{providerId}': "a provider's callback, authenticated by its signature over the raw body",
};

/** Path parameters → the kind of id they take (for one of the right form that does not exist). */
const ID_KINDS: Record<string, IdKind> = { chargeId: 'charge', endpointId: 'webhookEndpoint' };

/** Malformed ids: a route must refuse them as it refuses any unknown id, and not echo them whole. */
const MALFORMED_IDS: Record<string, string> = {
  'very long': `ch_${'x'.repeat(4000)}`,
  unicode: 'ch_ünïcødé_💥_名前',
  'a path': '../../charges',
  'a NUL byte (%00)': 'ch_\u0000',
};

/** Query values no parameter accepts (a cursor that is no id, a date that is no date, a number that is no number). */
const BAD_QUERY_VALUES: Record<string, string> = {
  'very long': 'x'.repeat(4000),
  unicode: 'ünïcødé_💥',
  'a path': '../',
  'a NUL byte': 'a\u0000b',
};

/**
 * A message says what to fix: not zod's bare "Invalid input…", not the input sent back whole (at most 64
 * characters of it, lib/errors.ts inputExcerpt), and short enough to read (a list of the accepted values fits).
 */
const MAX_MESSAGE_LENGTH = 500;
const ECHOED_TOO_MUCH = /x{65}/;

/** Tables with the merchant's rows that a refused request may still touch, and why (compared by count only). */
const TOUCHED_BY_EVERY_REQUEST: Record<string, string> = {
  api_keys: 'the first request a key makes pins its API version (resolveApiVersion), refused or not',
};

type Operation = {
  name: string;
  method: ApiMethod;
  handler: (request: Request, route: { params: Promise<Record<string, string>> }) => Promise<Response>;
  pathParams: string[];
  queryParams: string[];
  body?: { requiredFields: string[]; example: unknown };
};

const document = buildOpenApiDocument('http://localhost:3999') as unknown as {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any> };
};
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

function schemaOf(ref: any): any {
  return ref?.$ref ? document.components.schemas[ref.$ref.split('/').pop()] : ref;
}

async function operationsByScope(): Promise<{ inScope: Operation[]; outOfScope: string[]; undeclared: string[] }> {
  const routes = await loadApiRoutes();
  const inScope: Operation[] = [];
  const outOfScope: string[] = [];
  const undeclared: string[] = [];
  for (const route of routes) {
    const [docPath, item] = Object.entries(document.paths).find(([path]) => shape(path) === shape(route.path)) ?? [];
    for (const method of route.methods) {
      const name = `${method} ${route.path}`;
      const op = item?.[method.toLowerCase()];
      const secretKey = (op?.security ?? []).some((scheme: Record<string, unknown>) => 'SecretKey' in scheme);
      if (!op || !secretKey) {
        (name in OUT_OF_SCOPE ? outOfScope : undeclared).push(name);
        continue;
      }
      const parameters: { in: string; name: string }[] = op.parameters ?? [];
      const json = op.requestBody?.content?.['application/json'];
      const bodySchema = schemaOf(json?.schema);
      inScope.push({
        name: `${method} ${docPath}`,
        method,
        handler: route.module[method] as Operation['handler'],
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => p.name),
        ...(json
          ? {
              body: {
                requiredFields: bodySchema?.required ?? [],
                example: json.example ?? Object.values<{ value: unknown }>(json.examples ?? {})[0]?.value ?? {},
              },
            }
          : {}),
      });
    }
  }
  return { inScope, outOfScope, undeclared };
}

/**
 * Every row the merchant owns, per table: the tables with a merchant_id, and the tables whose rows hang off
 * the merchant's charges (charge_id) or webhook endpoints (endpoint_id). Count and a digest of the rows,
 * so an update is caught as well as an insert or a delete. Found from the catalog: a new table is included.
 */
async function merchantRows(merchantId: string): Promise<Record<string, string>> {
  const db = getDb();
  const columns = (await db.execute(sql`
    select table_name, column_name from information_schema.columns
    where table_schema = 'public' and column_name in ('merchant_id', 'charge_id', 'endpoint_id')
      and table_name in (select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE')
    order by table_name, column_name`)) as unknown as { table_name: string; column_name: string }[];
  const scopeOf: Record<string, string> = {
    merchant_id: `merchant_id = $1`,
    charge_id: `charge_id in (select id from charges where merchant_id = $1)`,
    endpoint_id: `endpoint_id in (select id from webhook_endpoints where merchant_id = $1)`,
  };
  const byTable = new Map<string, string>();
  for (const { table_name, column_name } of columns) if (!byTable.has(table_name)) byTable.set(table_name, scopeOf[column_name]!);
  const selects = [...byTable].map(([table, where]) => {
    const digest = table in TOUCHED_BY_EVERY_REQUEST ? `''` : `coalesce(md5(string_agg(t::text, '|' order by t::text)), '')`;
    return `select '${table}' as table_name, count(*) || ':' || ${digest} as state from "${table}" t where ${where.replaceAll('$1', `'${merchantId}'`)}`;
  });
  const rows = (await db.execute(sql.raw(selects.join('\nunion all\n')))) as unknown as { table_name: string; state: string }[];
  return Object.fromEntries(rows.map((row) => [row.table_name, row.state]));
}

type Answer = { status: number; contentType: string | null; body: any };

/** Calls the handler as Next.js does; a JSON answer is checked against the document (as callRoute checks it). */
async function send(
  operation: Operation,
  options: { apiKey: string; params?: Record<string, string>; query?: Record<string, string>; body?: string },
): Promise<Answer> {
  const query = new URLSearchParams(options.query ?? {}).toString();
  const headers: Record<string, string> = { 'x-api-key': options.apiKey };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const request = new Request(`http://localhost:3999/api/bad-input${query ? `?${query}` : ''}`, {
    method: operation.method,
    headers,
    body: options.body,
  });
  const response = await operation.handler(request, { params: Promise.resolve(options.params ?? {}) });
  const contentType = response.headers.get('content-type');
  if (!contentType?.includes('json')) {
    // A stream (GET /api/events/stream) that opened: the input was taken, which the case says it must not be.
    await response.body?.cancel();
    return { status: response.status, contentType, body: null };
  }
  const body = await response.json();
  await expectDeclaredResponse(operation.handler, { status: response.status, contentType, body, headers: response.headers });
  return { status: response.status, contentType, body };
}

const hasString = (value: unknown): boolean =>
  typeof value === 'string' || (typeof value === 'object' && value !== null && Object.values(value).some(hasString));
/** A copy of `value` whose last string (depth first) ends with a NUL character. */
function withNulInLastString(value: unknown): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  let last: { holder: Record<string, unknown>; key: string } | undefined;
  const visit = (holder: Record<string, unknown>) => {
    for (const [key, inner] of Object.entries(holder)) {
      if (typeof inner === 'string') last = { holder, key };
      else if (typeof inner === 'object' && inner !== null) visit(inner as Record<string, unknown>);
    }
  };
  visit(copy);
  if (last) last.holder[last.key] = `${last.holder[last.key] as string}\u0000`;
  return copy;
}

let merchant: TestMerchant;
/** An existing resource per path parameter, so a body case is refused for its body. */
const EXISTING: Record<string, string> = {};

beforeAll(async () => {
  merchant = await newMerchant();
  EXISTING.chargeId = (await createTestCharge({ apiKey: merchant.testKey, body: testCharge() })).chargeId;
  EXISTING.endpointId = (
    await createWebhookEndpoint({
      owner: { merchantId: merchant.id, mode: 'test' },
      input: { url: 'https://game.example/webhooks/chargeport' },
    })
  ).endpoint.id;
});

/** Sends one bad request and holds the rule: a clear 4xx in the envelope, and nothing written. */
async function expectRefusedUntouched(
  operation: Operation,
  options: Omit<Parameters<typeof send>[1], 'apiKey'>,
  says: { message?: RegExp; notMessage?: RegExp; param?: string } = {},
) {
  const before = await merchantRows(merchant.id);
  const answer = await send(operation, { ...options, apiKey: merchant.testKey });
  const after = await merchantRows(merchant.id);
  const seen = `${answer.status} ${answer.contentType}: ${JSON.stringify(answer.body)?.slice(0, 500)}`;
  expect(answer.status, seen).toBeGreaterThanOrEqual(400);
  expect(answer.status, seen).toBeLessThan(500);
  expect(answer.body, seen).toEqual({
    data: null,
    error: expect.objectContaining({ code: expect.any(String), message: expect.any(String) }),
  });
  const { code, message } = answer.body.error as { code: string; message: string };
  expect(Object.keys(answer.body.error as object).filter((key) => !['code', 'message', 'param', 'details'].includes(key))).toEqual([]);
  expect(ERROR_STATUS[code as ErrorCode], `${code} is in the error table at ${answer.status}`).toBe(answer.status);
  expect(message.trim().length, seen).toBeGreaterThan(10);
  expect(message, 'a message that says what to fix').not.toMatch(/^Invalid input|undefined|\[object Object\]/);
  expect(message, 'at most 64 characters of the input quoted').not.toMatch(ECHOED_TOO_MUCH);
  expect(message.length, `a message of at most ${MAX_MESSAGE_LENGTH} characters: ${message.slice(0, 120)}…`).toBeLessThanOrEqual(
    MAX_MESSAGE_LENGTH,
  );
  if (says.message) expect(message).toMatch(says.message);
  if (says.notMessage) expect(message).not.toMatch(says.notMessage);
  if (says.param) expect(answer.body.error.param, 'names the parameter').toBe(says.param);
  expect(after, 'nothing the merchant owns was written').toEqual(before);
}

const { inScope, outOfScope, undeclared } = await operationsByScope();
const existingParams = (operation: Operation) => Object.fromEntries(operation.pathParams.map((name) => [name, EXISTING[name] ?? '']));

describe('which operations are held', () => {
  it('every operation is either secret-key authenticated (held here) or out of scope with a reason', () => {
    expect(undeclared).toEqual([]);
    expect(Object.keys(OUT_OF_SCOPE).filter((name) => !outOfScope.includes(name))).toEqual([]);
    expect(inScope.length).toBeGreaterThan(10);
  });

  it('the tables compared by count only are tables with the merchant’s rows', async () => {
    const tables = Object.keys(await merchantRows(merchant.id));
    expect(Object.keys(TOUCHED_BY_EVERY_REQUEST).filter((table) => !tables.includes(table))).toEqual([]);
    expect(tables).toEqual(expect.arrayContaining(['charges', 'charge_events', 'idempotency_keys', 'refunds', 'webhook_endpoints']));
  });

  it('every path parameter has an existing resource and an id kind', () => {
    const params = [...new Set(inScope.flatMap((operation) => operation.pathParams))];
    expect(params.filter((name) => !(name in ID_KINDS) || !EXISTING[name])).toEqual([]);
  });
});

for (const operation of inScope.filter((op) => op.body || op.pathParams.length || op.queryParams.length)) {
  describe(operation.name, () => {
    const body = operation.body;
    if (body) {
      const notAnObject = /^The request body must be a JSON object \(got (an array|null|a string|a number)\)\.$/;
      const bodies: Record<string, [string, { message?: RegExp }?]> = {
        'a body that is not JSON': ['{"a":', { message: /not valid JSON/ }],
        'a JSON array': ['[]', { message: notAnObject }],
        'JSON null': ['null', { message: notAnObject }],
        'a JSON string': ['"x"', { message: notAnObject }],
        'a JSON number': ['42', { message: notAnObject }],
        'an unknown field only': ['{"zzUnknownField":1}'],
        ...(body.requiredFields.length ? { 'every required field missing': ['{}', { message: /: is required$/ }] } : {}),
        // PostgreSQL stores no NUL in text: a field that carries one must be refused, not reach an INSERT (the
        // last string of createCharge's example is metadata, of POST /api/webhook-endpoints' the description).
        ...(hasString(body.example)
          ? { 'the example with a NUL in its last string': [JSON.stringify(withNulInLastString(body.example)), { message: /NUL/ }] }
          : {}),
      };
      for (const [name, [text, says]] of Object.entries(bodies)) {
        it(`body: ${name}`, () => expectRefusedUntouched(operation, { params: existingParams(operation), body: text }, says));
      }
    }

    for (const param of operation.pathParams) {
      const ids: Record<string, () => string> = {
        'that does not exist': () => newId(ID_KINDS[param]!),
        ...Object.fromEntries(Object.entries(MALFORMED_IDS).map(([name, id]) => [`malformed (${name})`, () => id])),
      };
      for (const [name, id] of Object.entries(ids)) {
        it(`${param} ${name}`, () =>
          expectRefusedUntouched(
            operation,
            {
              params: { ...existingParams(operation), [param]: id() },
              ...(body ? { body: JSON.stringify(body.example) } : {}),
            },
            { param },
          ));
      }
    }

    if (operation.queryParams.length) {
      it('query: an unknown parameter', () => expectRefusedUntouched(operation, { query: { zz_unknown: '1' } }));
      for (const param of operation.queryParams) {
        for (const [name, value] of Object.entries(BAD_QUERY_VALUES)) {
          // The parameter was sent: never "is required".
          it(`query: ${param} ${name}`, () =>
            expectRefusedUntouched(operation, { query: { [param]: value } }, { param, notMessage: /is required/ }));
        }
      }
    }
  });
}
