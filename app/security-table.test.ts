/**
 * The security table (issue 14, the unkey pattern): one row per `app/api/**\/route.ts` method and per
 * exported server action, each with the six ways a request can come from the wrong place — no
 * credentials, another merchant's, the other mode's, a viewer's role, an expired session, a cross-site
 * request. A case runs against the real handler or action on real PostgreSQL and must be refused with
 * its status / error code while the victim's rows stay exactly as they were; or the row says why the
 * case does not apply. The first test walks the file system: a route or action without a row fails.
 *
 * Server actions are called as Next.js calls them, with their form: only Next's request plumbing is
 * stood in for (`cookies()`, `headers()`, `revalidatePath`); the session cookie is a real next-auth JWT
 * read by the real auth() and session checks (lib/auth/session.ts, lib/auth/session-token.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { SESSION_ABSOLUTE_SECONDS, issueSessionClaims } from '@/lib/auth/session-token';
import { getDb } from '@/lib/db/client';
import { apiKeys, merchantMembers, users } from '@/lib/db/schema';
import { DASHBOARD_MODE_COOKIE } from '@/lib/merchants/dashboard-mode';
import { registerOAuthApp } from '@/lib/oauth/register-oauth-app';
import { newUser } from '@/test/accounts';
import { callRoute, newMerchant, newPublishableKey, testCharge, usdcCharge, type CallResult } from '@/test/fixtures';

// ---------------------------------------------------------------------------------------------------
// Next.js's request scope, stood in for: what the action reads through cookies() and headers().
const request = vi.hoisted(() => ({ cookies: new Map<string, string>(), headers: new Headers({ host: 'localhost:3999' }) }));
vi.mock('next/headers', () => ({
  headers: async () => request.headers,
  cookies: async () => ({
    get: (name: string) => (request.cookies.has(name) ? { name, value: request.cookies.get(name)! } : undefined),
    getAll: () => [...request.cookies].map(([name, value]) => ({ name, value })),
    has: (name: string) => request.cookies.has(name),
    set: () => undefined,
    delete: () => undefined,
    toString: () => [...request.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
  }),
}));
vi.mock('next/cache', () => ({ revalidatePath: () => undefined, revalidateTag: () => undefined }));

const ROOT = path.resolve(import.meta.dirname, '..');
const SESSION_COOKIE = '__Host-chargeport.session';
const PIN = '739104';

type CaseName = 'noCredentials' | 'otherMerchant' | 'otherMode' | 'viewerRole' | 'expiredSession' | 'crossSite';
const CASES: CaseName[] = ['noCredentials', 'otherMerchant', 'otherMode', 'viewerRole', 'expiredSession', 'crossSite'];
/** A case that runs: it returns the refusal (status for routes, code for both). */
type Refused = { status?: number; code: string; message?: string };
type Run = () => Promise<Refused>;
type Case = Run | { na: string };
type Row = Record<CaseName, Case>;

// ---------------------------------------------------------------------------------------------------
// What the file system says must be in the table.

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? (entry.name === 'node_modules' ? [] : walk(full)) : [full];
  });
}

/** `METHOD /api/…` for every method a route file exports, except the 405 line (methodsNotAllowed). */
function routeMethods(): string[] {
  return walk(path.join(ROOT, 'app/api'))
    .filter((file) => file.endsWith('/route.ts'))
    .flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      const route = '/' + path.relative(path.join(ROOT, 'app'), path.dirname(file)).split(path.sep).join('/');
      const methods = [...source.matchAll(/export (?:async function|function|const) (GET|POST|PUT|PATCH|DELETE|OPTIONS)\b/g)].map(
        (match) => match[1]!,
      );
      return methods.map((method) => `${method} ${route}`);
    });
}

/** `file#name` for every function exported by a 'use server' file (app/, components/ and lib/). */
function serverActions(): string[] {
  return ['app', 'components', 'lib']
    .flatMap((dir) => walk(path.join(ROOT, dir)))
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.test.ts'))
    .flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      if (!/^\s*(\/\/[^\n]*\n|\/\*[\s\S]*?\*\/\s*)*['"]use server['"]/.test(source)) return [];
      const relative = path.relative(ROOT, file).split(path.sep).join('/');
      return [...source.matchAll(/export (?:async function (\w+)|const (\w+) = (?:user|member|public)(?:Action|Call)\b)/g)].map(
        (match) => `${relative}#${match[1] ?? match[2]}`,
      );
    });
}

// ---------------------------------------------------------------------------------------------------
// The world: merchant A (the victim) with an owner, a viewer, live and test charges, a live webhook
// endpoint and keys; merchant B (the attacker's) with its owner.

interface World {
  a: { id: string; liveKey: string; testKey: string; publishableKey: string; owner: string; viewer: string };
  b: { id: string; liveKey: string; testKey: string; owner: string };
  liveChargeId: string;
  testChargeId: string;
  liveEndpointId: string;
  liveSecretKeyId: string;
  oauthClientId: string;
  revokedKey: string;
}
let world: World;

async function member(merchantId: string, role: 'owner' | 'viewer'): Promise<string> {
  const userId = await newUser({ pin: PIN });
  await getDb().update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, userId));
  await getDb().insert(merchantMembers).values({ merchantId, userId, role });
  return userId;
}

async function setUpWorld(): Promise<World> {
  const [a, b] = [await newMerchant({ verified: true }), await newMerchant({ verified: true })];
  const publishable = await newPublishableKey(a.id, 'live');
  const live = await callRoute((await import('./api/createCharge/route')).POST, { apiKey: a.liveKey!, body: usdcCharge() });
  const test = await callRoute((await import('./api/createCharge/route')).POST, { apiKey: a.testKey, body: testCharge() });
  const endpoint = await callRoute((await import('./api/webhook-endpoints/route')).POST, {
    apiKey: a.liveKey!,
    body: { url: 'https://game.example/webhooks/chargeport' },
  });
  expect([live.status, test.status, endpoint.status]).toEqual([200, 200, 200]);
  const [secretKey] = await getDb()
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(sql`${apiKeys.merchantId} = ${a.id} and ${apiKeys.mode} = 'live' and ${apiKeys.kind} = 'secret'`);
  const revoked = await newMerchant({ verified: true });
  await getDb().update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.merchantId, revoked.id));
  const owner = await member(a.id, 'owner');
  const app = await registerOAuthApp({
    userId: owner,
    merchantId: a.id,
    app: { name: 'Victim app', logoUrl: '', redirectUris: ['https://game.example/callback'], clientType: 'confidential' },
  });
  return {
    a: {
      id: a.id,
      liveKey: a.liveKey!,
      testKey: a.testKey,
      publishableKey: publishable,
      owner,
      viewer: await member(a.id, 'viewer'),
    },
    b: { id: b.id, liveKey: b.liveKey!, testKey: b.testKey, owner: await member(b.id, 'owner') },
    liveChargeId: live.json.data.chargeId,
    testChargeId: test.json.data.chargeId,
    liveEndpointId: endpoint.json.data.id,
    liveSecretKeyId: secretKey!.id,
    oauthClientId: app.clientId,
    revokedKey: revoked.liveKey!,
  };
}

let columns: { table_name: string; column_name: string }[] | undefined;

/**
 * Everything stored for the victim: each table's rows that belong to merchant A (by `merchant_id`,
 * or through its charges) or to A's members (by `user_id` / the users row), hashed per table.
 * Timestamps of use may move (below); nothing else may.
 */
async function victimSnapshot(): Promise<Record<string, string>> {
  const db = getDb();
  columns ??= (await db.execute(sql`
    select table_name, column_name from information_schema.columns
    where table_schema = 'public' and column_name in ('merchant_id', 'user_id', 'charge_id')
    order by table_name, column_name
  `)) as unknown as { table_name: string; column_name: string }[];
  const { a } = world;
  // Moving timestamps are left out: a key's last use (and the updated_at that moves with it); a user
  // row's updated_at, which a right PIN (resetting a zero count to zero) touches for the acting user.
  const digest = (table: string, column: string, where: ReturnType<typeof sql>) =>
    sql`select ${`${table}.${column}`} as k, count(*)::int || ':' || md5(coalesce(string_agg((to_jsonb(t) - 'last_used_at' - ${table === 'users' || table === 'api_keys' ? 'updated_at' : 'last_used_at'})::text, '|' order by (to_jsonb(t))::text), '')) as v from ${sql.identifier(table)} t where ${where}`;
  const parts = columns.map(({ table_name: table, column_name: column }) => {
    if (column === 'merchant_id') return digest(table, column, sql`t.merchant_id = ${a.id}`);
    if (column === 'user_id') return digest(table, column, sql`t.user_id in (${a.owner}, ${a.viewer})`);
    return digest(table, column, sql`t.charge_id in (select id from charges where merchant_id = ${a.id})`);
  });
  parts.push(digest('users', 'id', sql`t.id in (${a.owner}, ${a.viewer})`));
  // One round trip: every table's digest in one statement.
  const rows = (await db.execute(sql.join(parts, sql` union all `))) as unknown as { k: string; v: string }[];
  return Object.fromEntries(rows.map((row) => [row.k, row.v]));
}

// ---------------------------------------------------------------------------------------------------
// Calling a server action as a user (or no one), in a dashboard mode.

type Actor = { userId: string; expired?: boolean } | null;

async function sessionCookie(actor: { userId: string; expired?: boolean }): Promise<string> {
  const claims = (await issueSessionClaims(actor.userId, { secondFactorPassed: true }))!;
  const token = actor.expired ? { ...claims, authAt: Number(claims.authAt) - SESSION_ABSOLUTE_SECONDS - 60 } : claims;
  return encode({ token, secret: process.env.AUTH_SECRET!, salt: SESSION_COOKIE });
}

/** Runs `call` in a request of `actor` (mode cookie as the dashboard's switch); returns its error code. */
async function asActor(actor: Actor, mode: 'live' | 'test', call: () => Promise<unknown>): Promise<Refused> {
  request.cookies = new Map([[DASHBOARD_MODE_COOKIE, mode]]);
  if (actor) request.cookies.set(SESSION_COOKIE, await sessionCookie(actor));
  let result: unknown;
  try {
    result = await call();
  } catch (error) {
    // An AppError thrown past the action (the ones that are not forms) is its refusal too.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return { code };
    throw error;
  }
  const error = (result as { error?: { code?: string; message?: string } | string } | undefined)?.error;
  if (typeof error === 'object' && error?.code) return { code: error.code, message: error.message };
  if (typeof error === 'string') return { code: `message: ${error}` };
  throw new Error(`the action did not refuse: ${JSON.stringify(result)?.slice(0, 300)}`);
}

function formOf(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

type FormAction = (state: never, form: FormData) => Promise<unknown>;
type ActionModule = Record<string, unknown>;

interface ActionSpec {
  /** How to call it with a form built from `fields` (default: `(initialState, form)`). */
  call?: (fn: (...args: never[]) => Promise<unknown>, fields: Record<string, string>) => Promise<unknown>;
  /** Nobody needs to be signed in (sign-in steps, the anonymous checkout): the reason. */
  isPublic?: string;
  /** For merchant actions: the form that the owner of A could send (the viewer sends the same). */
  memberForm?: () => Record<string, string>;
  /** The expected refusal of a viewer (default forbidden). */
  viewerCode?: string;
  /** A form naming A's live resource: sent by B's owner (not_found), and by A's owner in test mode. */
  victimResourceForm?: () => Record<string, string>;
  /** Why another merchant's / the other mode's case does not apply (when no victimResourceForm). */
  scopeNa?: string;
  modeNa?: string;
  roleNa?: string;
  /** What a signed-out caller gets (default `unauthenticated`). */
  noSessionCode?: string;
}

const callForm = (fn: (...args: never[]) => Promise<unknown>, fields: Record<string, string>) =>
  (fn as unknown as FormAction)({} as never, formOf(fields));

const CROSS_SITE_ACTIONS =
  'Next.js refuses a server action whose Origin is not the host before it runs, in the server (not in the function called here): e2e/server-action-origin.spec.ts replays a real action post from another origin (refused, nothing returned) and from ours (works); session cookies are SameSite=Lax';
const OWN_ACCOUNT = 'acts on the signed-in account only: no merchant, no id of another account in the form';
const NO_MODE = 'has no test/live mode';
const NO_ROLE = 'not a merchant action: no member role involved';

function actionRow(load: () => Promise<ActionModule>, name: string, spec: ActionSpec): Row {
  const fn = async () => (await load())[name] as (...args: never[]) => Promise<unknown>;
  const invoke = async (fields: Record<string, string>) => (spec.call ?? callForm)(await fn(), fields);
  const signedIn = (code: string, actor: () => Actor, mode: 'live' | 'test', fields: () => Record<string, string>): Run => {
    return async () => {
      const refused = await asActor(actor(), mode, () => invoke(fields()));
      expect(refused.code, `${name}: ${refused.message}`).toBe(code);
      return refused;
    };
  };
  const memberForm = spec.memberForm ?? (() => ({}));
  return {
    noCredentials: spec.isPublic
      ? { na: `public: ${spec.isPublic}` }
      : signedIn(spec.noSessionCode ?? 'unauthenticated', () => null, 'live', memberForm),
    expiredSession: spec.isPublic
      ? { na: `public: ${spec.isPublic}` }
      : signedIn(spec.noSessionCode ?? 'unauthenticated', () => ({ userId: world.a.owner, expired: true }), 'live', memberForm),
    viewerRole: spec.roleNa
      ? { na: spec.roleNa }
      : spec.memberForm
        ? signedIn(spec.viewerCode ?? 'forbidden', () => ({ userId: world.a.viewer }), 'live', memberForm)
        : { na: NO_ROLE },
    otherMerchant: spec.victimResourceForm
      ? signedIn('not_found', () => ({ userId: world.b.owner }), 'live', spec.victimResourceForm)
      : { na: spec.scopeNa ?? OWN_ACCOUNT },
    otherMode:
      spec.victimResourceForm && !spec.modeNa
        ? signedIn('not_found', () => ({ userId: world.a.owner }), 'test', spec.victimResourceForm)
        : { na: spec.modeNa ?? NO_MODE },
    crossSite: { na: CROSS_SITE_ACTIONS },
  };
}

// ---------------------------------------------------------------------------------------------------
// Calling a route handler.

type Handler = Parameters<typeof callRoute>[0];
type RouteModule = Record<string, unknown>;

interface ApiKeyRouteSpec {
  /** The request against A's live resource (params, body); `key` is the caller's credential. */
  call: (handler: Handler, key: string | undefined, headers?: Record<string, string>) => Promise<CallResult>;
  /** Publishable keys may call it (createCharge, reading a charge): held to their allowed origins. */
  allowsPublishable?: boolean;
  /** Lists or creates for the key's own merchant: there is no victim id to aim at. */
  collection?: string;
  /** Test keys only (test helpers): aimed at A's test charge; B's test key is the other merchant's. */
  testOnly?: boolean;
}

function refusal(result: CallResult): Refused {
  return { status: result.status, code: String(result.json?.error?.code) };
}

function apiKeyRow(load: () => Promise<RouteModule>, method: string, spec: ApiKeyRouteSpec): Row {
  const run = (key: () => string | undefined, status: number, code: string, headers?: Record<string, string>): Run => {
    return async () => {
      const handler = (await load())[method] as Handler;
      const refused = refusal(await spec.call(handler, key(), headers));
      expect(refused).toEqual({ status, code });
      return refused;
    };
  };
  return {
    noCredentials: run(() => undefined, 401, 'missing_api_key'),
    expiredSession: run(() => world.revokedKey, 401, 'invalid_api_key'),
    otherMerchant: spec.collection
      ? { na: spec.collection }
      : run(() => (spec.testOnly ? world.b.testKey : world.b.liveKey), 404, 'not_found'),
    otherMode: spec.collection
      ? { na: spec.collection }
      : spec.testOnly
        ? run(() => world.a.liveKey, 403, 'test_key_required')
        : run(() => world.a.testKey, 404, 'not_found'),
    viewerRole: spec.allowsPublishable
      ? { na: 'publishable keys may call it by design; their origin and redirect rules are the crossSite case' }
      : run(() => world.a.publishableKey, 403, 'key_not_permitted'),
    crossSite: spec.allowsPublishable
      ? run(() => world.a.publishableKey, 403, 'origin_not_allowed', { origin: 'https://attacker.example' })
      : {
          na: 'secret keys are never sent by a browser page: the route grants no CORS, so a cross-site page can neither send x-api-key nor read the answer',
        },
  };
}

function publicRow(reason: string): Row {
  return Object.fromEntries(CASES.map((name) => [name, { na: `public: ${reason}` }])) as Row;
}

/** Routes checked by their own suites with the same cases; the row names the suite. */
function coveredBy(reason: string, overrides: Partial<Row> = {}): Row {
  return { ...(Object.fromEntries(CASES.map((name) => [name, { na: reason }])) as Row), ...overrides };
}

const createCharge = () => import('./api/createCharge/route');
const chargeRoute = () => import('./api/charges/[chargeId]/route');
const charges = () => import('./api/charges/route');
const cancel = () => import('./api/charges/[chargeId]/cancel/route');
const refunds = () => import('./api/charges/[chargeId]/refunds/route');
const events = () => import('./api/events/route');
const eventStream = () => import('./api/events/stream/route');
const endpoints = () => import('./api/webhook-endpoints/route');
const endpoint = () => import('./api/webhook-endpoints/[endpointId]/route');
const rotate = () => import('./api/webhook-endpoints/[endpointId]/rotate-secret/route');
const testPay = () => import('./api/test_helpers/charges/[chargeId]/pay/route');

const onCharge =
  (method: string, body?: unknown): ApiKeyRouteSpec['call'] =>
  (handler, apiKey, headers) =>
    callRoute(handler, { apiKey, method, body, headers, params: { chargeId: world.liveChargeId } });
const onEndpoint =
  (method: string, body?: unknown): ApiKeyRouteSpec['call'] =>
  (handler, apiKey, headers) =>
    callRoute(handler, { apiKey, method, body, headers, params: { endpointId: world.liveEndpointId } });
const onCollection =
  (method: string, body?: unknown): ApiKeyRouteSpec['call'] =>
  (handler, apiKey, headers) =>
    callRoute(handler, { apiKey, method, body, headers });

const CORS_PREFLIGHT = 'a CORS preflight: answers which origins may call, changes nothing and reads nothing (lib/api/cors.test.ts)';
const SCOPED_BY_KEY = 'lists or creates for the key’s own merchant and mode only: nothing in the request names a merchant';

const ROUTES: Record<string, Row> = {
  'POST /api/createCharge': apiKeyRow(createCharge, 'POST', {
    call: onCollection('POST', usdcCharge()),
    allowsPublishable: true,
    collection: SCOPED_BY_KEY,
  }),
  'OPTIONS /api/createCharge': publicRow(CORS_PREFLIGHT),
  'GET /api/charges/[chargeId]': apiKeyRow(chargeRoute, 'GET', { call: onCharge('GET'), allowsPublishable: true }),
  'OPTIONS /api/charges/[chargeId]': publicRow(CORS_PREFLIGHT),
  'GET /api/charges': apiKeyRow(charges, 'GET', { call: onCollection('GET'), collection: SCOPED_BY_KEY }),
  'POST /api/charges/[chargeId]/cancel': apiKeyRow(cancel, 'POST', { call: onCharge('POST', {}) }),
  'POST /api/charges/[chargeId]/refunds': apiKeyRow(refunds, 'POST', {
    // Back to the payer: an API key cannot name another address (the transfer gate, lib/transactions/transfer-policy.test.ts).
    call: onCharge('POST', { reason: 'security table' }),
  }),
  'GET /api/charges/[chargeId]/refunds': apiKeyRow(refunds, 'GET', { call: onCharge('GET') }),
  'GET /api/events': apiKeyRow(events, 'GET', { call: onCollection('GET'), collection: SCOPED_BY_KEY }),
  'GET /api/events/stream': apiKeyRow(eventStream, 'GET', { call: onCollection('GET'), collection: SCOPED_BY_KEY }),
  'POST /api/webhook-endpoints': apiKeyRow(endpoints, 'POST', {
    call: onCollection('POST', { url: 'https://attacker.example/hook' }),
    collection: SCOPED_BY_KEY,
  }),
  'GET /api/webhook-endpoints': apiKeyRow(endpoints, 'GET', { call: onCollection('GET'), collection: SCOPED_BY_KEY }),
  'GET /api/webhook-endpoints/[endpointId]': apiKeyRow(endpoint, 'GET', { call: onEndpoint('GET') }),
  'PATCH /api/webhook-endpoints/[endpointId]': apiKeyRow(endpoint, 'PATCH', {
    call: onEndpoint('PATCH', { url: 'https://attacker.example/hook' }),
  }),
  'DELETE /api/webhook-endpoints/[endpointId]': apiKeyRow(endpoint, 'DELETE', { call: onEndpoint('DELETE') }),
  'POST /api/webhook-endpoints/[endpointId]/rotate-secret': apiKeyRow(rotate, 'POST', { call: onEndpoint('POST', {}) }),
  'POST /api/test_helpers/charges/[chargeId]/pay': apiKeyRow(testPay, 'POST', {
    call: (handler, apiKey, headers) =>
      callRoute(handler, { apiKey, method: 'POST', body: {}, headers, params: { chargeId: world.testChargeId } }),
    testOnly: true,
  }),
  // Signed-in consumer routes and OAuth access tokens.
  'POST /api/charges/[chargeId]/pay': coveredBy(
    'the buyer’s own balance pays any open charge by design (no merchant side); the session guard is withSession → requireUserForAction, the same guard as the actions below',
  ),
  'GET /api/oauth/balances': coveredBy(
    'an OAuth access token of one user (withAccessToken, scope wallet:read); the wrapper refuses a missing, unknown or out-of-scope token in lib/oauth/payment-requests.test.ts',
  ),
  'OPTIONS /api/oauth/balances': publicRow(CORS_PREFLIGHT),
  'POST /api/oauth/payment-requests': coveredBy(
    'an OAuth access token of one user (withAccessToken, scope payments): lib/oauth/payment-requests.test.ts refuses no token, an unknown one, one without the scope, and another merchant’s charge',
  ),
  'OPTIONS /api/oauth/payment-requests': publicRow(CORS_PREFLIGHT),
  'GET /api/oauth/payment-requests/[requestId]': coveredBy(
    'an OAuth access token of one user (withAccessToken, scope payments): lib/oauth/payment-requests.test.ts refuses no token, an unknown one, one without the scope, and another merchant’s charge',
  ),
  'OPTIONS /api/oauth/payment-requests/[requestId]': publicRow(CORS_PREFLIGHT),
  // Public by design.
  'GET /api/checkout/[chargeId]/status': publicRow(
    'the checkout page polls it; it shows what the checkout shows, by unguessable charge id; CORS `*` for WebGL games, no cookie read',
  ),
  'GET /api/checkout/[chargeId]/events': publicRow(
    'the checkout page follows it; the same view as the status route, by unguessable charge id; streams capped per IP (lib/payments/checkout-event-stream.test.ts)',
  ),
  'GET /api/onramp/orders/[orderId]': publicRow('the on-ramp page polls its order by unguessable id'),
  'GET /api/onramp/quote': publicRow('a price quote; nothing stored'),
  'POST /api/onramp/webhooks/[providerId]': publicRow(
    'provider webhooks are authenticated by their signature (app/api/onramp/orders/orders.test.ts, lib/onramp tests)',
  ),
  'GET /api/health': publicRow('health check'),
  'GET /api/health/live': publicRow('liveness'),
  'GET /api/health/ready': publicRow('readiness'),
  'GET /api/metrics': publicRow('bearer METRICS_TOKEN when configured (app/api/metrics/metrics.test.ts)'),
  'GET /api/openapi.json': publicRow('the API document'),
  'GET /api/auth/[...nextauth]': publicRow('next-auth’s own endpoints (sign-in, CSRF token)'),
  'POST /api/auth/[...nextauth]': publicRow('next-auth’s own endpoints, CSRF-token checked by next-auth'),
  'GET /api/[...path]': publicRow('the JSON 404 for unknown routes (app/api/methods.test.ts)'),
  'POST /api/[...path]': publicRow('the JSON 404 for unknown routes'),
  'PUT /api/[...path]': publicRow('the JSON 404 for unknown routes'),
  'PATCH /api/[...path]': publicRow('the JSON 404 for unknown routes'),
  'DELETE /api/[...path]': publicRow('the JSON 404 for unknown routes'),
  'OPTIONS /api/[...path]': publicRow('the JSON 404 for unknown routes'),
};

// ---------------------------------------------------------------------------------------------------
// Server actions.

const auth = () => import('./(auth)/actions');
const account = () => import('./(account)/actions');
const security = () => import('./(account)/account/security/actions');
const connectedApps = () => import('./(account)/account/profile/connected-apps-actions');
const send = () => import('./(account)/wallet/send/actions');
const apiKeyActions = () => import('./dashboard/settings/api-keys/actions');
const webhookActions = () => import('./dashboard/settings/webhooks/actions');
const memberActions = () => import('./dashboard/settings/members/actions');
const oauthActions = () => import('./dashboard/settings/oauth/actions');
const profileActions = () => import('./dashboard/settings/profile/actions');
const contractActions = () => import('./dashboard/settings/contracts/actions');
const tokenActions = () => import('./dashboard/settings/tokens/actions');
const balanceActions = () => import('./dashboard/balances/actions');
const chargeActions = () => import('./dashboard/charges/[chargeId]/actions');
const dashboardActions = () => import('./dashboard/actions');

const SIGN_IN = 'a step of signing in or up: there is no session yet';
const BUYER = 'the anonymous buyer on the checkout (by unguessable charge id)';
const noArgs = (fn: (...args: never[]) => Promise<unknown>) => (fn as unknown as () => Promise<unknown>)();
const objectArg = (input: Record<string, unknown>) => (fn: (...args: never[]) => Promise<unknown>) =>
  (fn as unknown as (input: Record<string, unknown>) => Promise<unknown>)(input);

const endpointForm = () => ({
  endpointId: world.liveEndpointId,
  pin: PIN,
  url: 'https://attacker.example/hook',
  eventTypes: '*',
  eventId: 'evt_none',
  confirm: 'delete',
});
const MERCHANT_FROM_SESSION =
  'the merchant comes from the session (currentMemberActor), never from the form: there is no other merchant to aim at';

const ACTIONS: Record<string, Row> = {
  // Dashboard: member role and merchant scope.
  'app/dashboard/settings/api-keys/actions.ts#createKeyAction': actionRow(apiKeyActions, 'createKeyAction', {
    memberForm: () => ({ name: 'Stolen', kind: 'secret', pin: PIN }),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: 'the mode is the dashboard switch; a test key is no harm',
  }),
  'app/dashboard/settings/api-keys/actions.ts#rollKeyAction': actionRow(apiKeyActions, 'rollKeyAction', {
    memberForm: () => ({ keyId: world.liveSecretKeyId, overlapHours: '0', pin: PIN }),
    victimResourceForm: () => ({ keyId: world.liveSecretKeyId, overlapHours: '0', pin: PIN }),
    modeNa: 'keys carry their own mode; the dashboard lists both',
  }),
  'app/dashboard/settings/api-keys/actions.ts#revokeKeyAction': actionRow(apiKeyActions, 'revokeKeyAction', {
    memberForm: () => ({ keyId: world.liveSecretKeyId, confirm: 'revoke' }),
    victimResourceForm: () => ({ keyId: world.liveSecretKeyId, confirm: 'revoke' }),
    modeNa: 'keys carry their own mode; the dashboard lists both',
  }),
  'app/dashboard/settings/api-keys/actions.ts#setOriginsAction': actionRow(apiKeyActions, 'setOriginsAction', {
    memberForm: () => ({ keyId: world.liveSecretKeyId, allowedOrigins: 'https://attacker.example', allowedRedirectOrigins: '' }),
    victimResourceForm: () => ({ keyId: world.liveSecretKeyId, allowedOrigins: 'https://attacker.example', allowedRedirectOrigins: '' }),
    modeNa: 'keys carry their own mode; the dashboard lists both',
  }),
  'app/dashboard/settings/webhooks/actions.ts#createEndpointAction': actionRow(webhookActions, 'createEndpointAction', {
    memberForm: () => ({ url: 'https://attacker.example/hook', eventTypes: '*', pin: PIN }),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: 'creates in the dashboard’s mode',
  }),
  'app/dashboard/settings/webhooks/actions.ts#updateEndpointAction': actionRow(webhookActions, 'updateEndpointAction', {
    memberForm: endpointForm,
    victimResourceForm: endpointForm,
  }),
  'app/dashboard/settings/webhooks/actions.ts#deleteEndpointAction': actionRow(webhookActions, 'deleteEndpointAction', {
    memberForm: endpointForm,
    victimResourceForm: endpointForm,
  }),
  'app/dashboard/settings/webhooks/actions.ts#revealSecretAction': actionRow(webhookActions, 'revealSecretAction', {
    memberForm: endpointForm,
    victimResourceForm: endpointForm,
  }),
  'app/dashboard/settings/webhooks/actions.ts#rotateSecretAction': actionRow(webhookActions, 'rotateSecretAction', {
    memberForm: () => ({ ...endpointForm(), overlapHours: '0' }),
    victimResourceForm: () => ({ ...endpointForm(), overlapHours: '0' }),
  }),
  'app/dashboard/settings/webhooks/actions.ts#sendTestEventAction': actionRow(webhookActions, 'sendTestEventAction', {
    memberForm: endpointForm,
    victimResourceForm: endpointForm,
  }),
  'app/dashboard/settings/webhooks/actions.ts#resendEventAction': actionRow(webhookActions, 'resendEventAction', {
    memberForm: endpointForm,
    victimResourceForm: endpointForm,
  }),
  'app/dashboard/settings/members/actions.ts#inviteMemberAction': actionRow(memberActions, 'inviteMemberAction', {
    memberForm: () => ({ email: 'accomplice@attacker.example', role: 'owner', pin: PIN }),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: NO_MODE,
  }),
  'app/dashboard/settings/members/actions.ts#changeRoleAction': actionRow(memberActions, 'changeRoleAction', {
    memberForm: () => ({ userId: world.a.viewer, role: 'owner', pin: PIN }),
    victimResourceForm: () => ({ userId: world.a.viewer, role: 'owner', pin: PIN }),
    modeNa: NO_MODE,
  }),
  'app/dashboard/settings/members/actions.ts#removeMemberAction': actionRow(memberActions, 'removeMemberAction', {
    memberForm: () => ({ userId: world.a.owner }),
    victimResourceForm: () => ({ userId: world.a.owner }),
    modeNa: NO_MODE,
  }),
  'app/dashboard/settings/members/actions.ts#revokeInvitationAction': actionRow(memberActions, 'revokeInvitationAction', {
    memberForm: () => ({ invitationId: 'inv_0000000000000000' }),
    scopeNa: 'the invitation is looked up within the session’s merchant (lib/merchants/revoke-invitation.ts)',
    modeNa: NO_MODE,
  }),
  'app/dashboard/settings/oauth/actions.ts#registerOAuthAppAction': actionRow(oauthActions, 'registerOAuthAppAction', {
    memberForm: () => ({ name: 'Evil app', redirectUris: 'https://attacker.example/cb', clientType: 'confidential' }),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: NO_MODE,
  }),
  ...Object.fromEntries(
    (['rollOAuthAppSecretAction', 'revokeOAuthAppSecretAction', 'revokeOAuthAppAction'] as const).map((name) => [
      `app/dashboard/settings/oauth/actions.ts#${name}`,
      actionRow(oauthActions, name, {
        memberForm: () => ({ clientId: world.oauthClientId }),
        victimResourceForm: () => ({ clientId: world.oauthClientId }),
        modeNa: NO_MODE,
      }),
    ]),
  ),
  'app/dashboard/settings/profile/actions.ts#updateProfileAction': actionRow(profileActions, 'updateProfileAction', {
    memberForm: () => ({ name: 'Evil Studio', supportEmail: '', logoUrl: '' }),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: NO_MODE,
  }),
  'app/dashboard/settings/profile/actions.ts#rollOnrampLinkKeyAction': actionRow(profileActions, 'rollOnrampLinkKeyAction', {
    memberForm: () => ({}),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: NO_MODE,
  }),
  'app/dashboard/settings/contracts/actions.ts#registerContractAction': actionRow(contractActions, 'registerContractAction', {
    memberForm: () => ({ chain: 'POLYGON', address: '0x000000000000000000000000000000000000dEaD', label: 'Evil' }),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: 'registers in the dashboard’s mode',
  }),
  'app/dashboard/settings/contracts/actions.ts#createRuleAction': actionRow(contractActions, 'createRuleAction', {
    memberForm: () => ({ contractId: 'con_none', function: 'mint' }),
    scopeNa: 'the contract is looked up within the session’s merchant and mode (lib/contracts tests)',
    modeNa: 'the contract is looked up within the dashboard’s mode (lib/contracts tests)',
  }),
  'app/dashboard/settings/contracts/actions.ts#setRuleEnabledAction': actionRow(contractActions, 'setRuleEnabledAction', {
    memberForm: () => ({ ruleId: 'rule_none', enabled: 'true' }),
    scopeNa: 'the rule is looked up within the session’s merchant and mode (lib/contracts tests)',
    modeNa: 'the rule is looked up within the dashboard’s mode (lib/contracts tests)',
  }),
  'app/dashboard/settings/tokens/actions.ts#setTokenEnabledAction': actionRow(tokenActions, 'setTokenEnabledAction', {
    memberForm: () => ({ chain: 'POLYGON', address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', enabled: 'false' }),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: 'token settings hold for both modes',
  }),
  'app/dashboard/settings/tokens/actions.ts#addCustomTokenAction': actionRow(tokenActions, 'addCustomTokenAction', {
    memberForm: () => ({ chain: 'POLYGON', address: '0x000000000000000000000000000000000000dEaD' }),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: 'token settings hold for both modes',
  }),
  'app/dashboard/balances/actions.ts#withdrawAction': actionRow(balanceActions, 'withdrawAction', {
    memberForm: () => ({
      token: 'POLYGON:0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      amount: '1',
      toAddress: '0x000000000000000000000000000000000000dEaD',
      pin: PIN,
      withdrawalId: `wdr_${'A'.repeat(22)}`,
    }),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: 'withdraws from the dashboard’s mode’s wallet of the session’s merchant',
  }),
  ...Object.fromEntries(
    (['refundChargeAction', 'retryFulfilmentAction', 'fulfilChargeAction'] as const).map((name) => {
      const form = () => ({
        chargeId: world.liveChargeId,
        amount: '1',
        reason: 'security table',
        pin: PIN,
        requestId: `rfq_${'A'.repeat(22)}`,
      });
      return [
        `app/dashboard/charges/[chargeId]/actions.ts#${name}`,
        actionRow(chargeActions, name, { memberForm: form, victimResourceForm: form }),
      ];
    }),
  ),
  'app/dashboard/actions.ts#requestVerificationAction': actionRow(dashboardActions, 'requestVerificationAction', {
    memberForm: () => ({}),
    scopeNa: MERCHANT_FROM_SESSION,
    modeNa: NO_MODE,
  }),
  'app/dashboard/mode-actions.ts#setDashboardModeAction': publicRow(
    'sets the caller’s own test/live display cookie for /dashboard; reads and changes no data',
  ),

  // The signed-in account (the consumer side).
  ...Object.fromEntries(
    (
      [
        'startEmailChangeAction',
        'confirmEmailChangeAction',
        'requestFirstPinCodeAction',
        'setPinAction',
        'changePinAction',
        'startPhoneLinkAction',
        'confirmPhoneLinkAction',
        'unlinkPhoneAction',
        'requestPinResetAction',
        'resetPinAction',
        'becomeMerchantAction',
      ] as const
    ).map((name) => [`app/(account)/actions.ts#${name}`, actionRow(account, name, {})]),
  ),
  'app/(account)/actions.ts#exportKeyAction': actionRow(account, 'exportKeyAction', {
    scopeNa: 'the wallet is looked up among the signed-in user’s own (lib/wallets/export-private-key.ts: not_found otherwise)',
  }),
  ...Object.fromEntries(
    (['requestFactorCodeAction', 'startTotpAction', 'confirmTotpAction', 'removeTotpAction', 'renewRecoveryCodesAction'] as const).map(
      (name) => [`app/(account)/account/security/actions.ts#${name}`, actionRow(security, name, {})],
    ),
  ),
  ...Object.fromEntries(
    (['passkeyRegistrationOptionsAction', 'stepUpPasskeyOptionsAction'] as const).map((name) => [
      `app/(account)/account/security/actions.ts#${name}`,
      actionRow(security, name, { call: noArgs }),
    ]),
  ),
  'app/(account)/account/security/actions.ts#registerPasskeyAction': actionRow(security, 'registerPasskeyAction', {
    call: objectArg({ name: 'Evil key', response: '{}' }),
  }),
  'app/(account)/account/security/actions.ts#removePasskeyAction': actionRow(security, 'removePasskeyAction', {
    scopeNa: 'the passkey is deleted only among the signed-in user’s own (lib/accounts/two-factor/passkeys.ts: not_found otherwise)',
  }),
  'app/(account)/account/profile/connected-apps-actions.ts#revokeConnectedAppAction': actionRow(connectedApps, 'revokeConnectedAppAction', {
    scopeNa: 'only the signed-in user’s own grants to the app are revoked (lib/oauth/grants.ts: by client and account)',
  }),
  'app/(account)/account/profile/connected-apps-actions.ts#revokeAllConnectedAppsAction': actionRow(
    connectedApps,
    'revokeAllConnectedAppsAction',
    {
      scopeNa: 'only the signed-in user’s own grants are revoked (lib/oauth/grants.ts: by account)',
    },
  ),
  'app/(account)/wallet/send/actions.ts#sendAction': actionRow(send, 'sendAction', {}),
  'app/(account)/wallet/allowances/actions.ts#revokeAllowanceAction': actionRow(
    () => import('./(account)/wallet/allowances/actions'),
    'revokeAllowanceAction',
    { scopeNa: 'revokes only the signed-in user’s own allowance: another’s id is not_found (lib/allowances/spending-allowance.test.ts)' },
  ),
  'app/invitations/[token]/actions.ts#acceptInvitationAction': actionRow(
    () => import('./invitations/[token]/actions'),
    'acceptInvitationAction',
    {},
  ),
  'app/refunds/claim/[token]/actions.ts#claimRefundAction': publicRow(
    'a refund claim link: the token (32 random characters, stored hashed) is the capability, per-IP limited; the balance choice needs a session and pays only the signed-in user’s own wallet (lib/refunds/refund-claims.test.ts)',
  ),
  'app/oauth/authorize/[uid]/actions.ts#consentAction': actionRow(() => import('./oauth/authorize/[uid]/actions'), 'consentAction', {}),
  'app/oauth/pay/actions.ts#confirmPaymentRequestAction': actionRow(() => import('./oauth/pay/actions'), 'confirmPaymentRequestAction', {}),
  'app/checkout/[chargeId]/actions.ts#payFromBalanceAction': actionRow(
    () => import('./checkout/[chargeId]/actions'),
    'payFromBalanceAction',
    {},
  ),
  'app/checkout/[chargeId]/swap-actions.ts#swapHeldFundsAction': actionRow(
    () => import('./checkout/[chargeId]/swap-actions'),
    'swapHeldFundsAction',
    {},
  ),
  'app/checkout/[chargeId]/swap-actions.ts#quoteHeldFundsAction': actionRow(
    () => import('./checkout/[chargeId]/swap-actions'),
    'quoteHeldFundsAction',
    {
      call: (fn) => (fn as unknown as (chargeId: string) => Promise<unknown>)(world.liveChargeId),
    },
  ),

  // Signing in and out.
  'app/(auth)/actions.ts#confirmSecondFactorAction': actionRow(auth, 'confirmSecondFactorAction', {}),
  'app/(auth)/actions.ts#passkeySignInOptionsAction': actionRow(auth, 'passkeySignInOptionsAction', { call: noArgs }),
  'app/(auth)/actions.ts#passkeySignInAction': actionRow(auth, 'passkeySignInAction', { call: objectArg({ response: '{}' }) }),
  'app/(auth)/actions.ts#requestEmailVerificationCode': actionRow(auth, 'requestEmailVerificationCode', {}),
  'app/(auth)/actions.ts#confirmEmailVerification': actionRow(auth, 'confirmEmailVerification', {}),
  'app/(auth)/actions.ts#signOutEverywhereAction': actionRow(auth, 'signOutEverywhereAction', { call: noArgs }),
  ...Object.fromEntries(
    (
      [
        'requestSignUpCode',
        'confirmSignUpCode',
        'requestSignInCode',
        'confirmSignInCode',
        'resendCode',
        'getSiweNonce',
        'signInWithSiwe',
        'signInWithProvider',
      ] as const
    ).map((name) => [`app/(auth)/actions.ts#${name}`, publicRow(SIGN_IN)]),
  ),
  'app/(auth)/actions.ts#signOutAction': publicRow('signing out the caller’s own cookie needs nothing'),

  // The anonymous buyer and the sandbox provider.
  'app/checkout/[chargeId]/actions.ts#cancelCheckoutAction': publicRow(BUYER),
  'app/checkout/[chargeId]/fiat-actions.ts#payWithFiatAction': publicRow(BUYER),
  'app/checkout/[chargeId]/swap-actions.ts#quoteSwapFundingAction': publicRow(BUYER),
  'app/checkout/[chargeId]/swap-actions.ts#placeSwapFundingOrderAction': publicRow(BUYER),
  'app/checkout/[chargeId]/swap-actions.ts#swapProgressAction': publicRow(BUYER),
  'app/onramp/actions.ts#placeOnrampOrderAction': publicRow('the anonymous on-ramp buyer; a signed-in buyer only adds their own wallets'),
  'app/sandbox-provider/pay/[sessionId]/actions.ts#sandboxPayAction': publicRow(
    'the sandbox provider’s own payment page (development only, off in production)',
  ),
  'lib/geo/set-country-action.ts#setCountryAction': publicRow(
    'the caller’s own display-country cookie; compliance reads the CDN header, not this',
  ),
};

// ---------------------------------------------------------------------------------------------------

describe('the security table', () => {
  it('has a row for every API route method and every server action, and no stale row', () => {
    const table = { ...ROUTES, ...ACTIONS };
    const wanted = [...routeMethods(), ...serverActions()].sort();
    const missing = wanted.filter((key) => !(key in table));
    const stale = Object.keys(table).filter((key) => !wanted.includes(key));
    expect({ missing, stale }).toEqual({ missing: [], stale: [] });
    for (const [key, row] of Object.entries(table)) {
      for (const name of CASES) {
        const entry = row[name];
        expect(typeof entry === 'function' || (entry && entry.na.length > 10), `${key} ${name}`).toBe(true);
      }
    }
  });

  describe.each(Object.entries({ ...ROUTES, ...ACTIONS }))('%s', (key, row) => {
    beforeAll(async () => {
      world ??= await setUpWorld();
    });
    const runs = CASES.filter((name) => typeof row[name] === 'function');
    if (runs.length === 0) it.skip('every case is not applicable (see the row)', () => undefined);
    it.each(runs)('%s → refused, nothing changed', async (name) => {
      const before = await victimSnapshot();
      await (row[name] as Run)();
      expect(await victimSnapshot(), `${key} ${name} changed the victim's rows`).toEqual(before);
    });
  });
});
