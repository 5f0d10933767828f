/**
 * The C# game SDK (sdk/csharp, a Unity package) compiled with Mono's mcs and run against the app served on
 * loopback: the app's own route handlers behind a real HTTP server, on real PostgreSQL and the local Polygon
 * node. The C# program, through a recording transport (the IChargeportTransport interface) wrapping
 * HttpClientTransport, uses the Unity sample's sign-in and pay logic: a stale saved token falls back to the
 * device flow, it reads the user, refreshes, resumes from the saved token in a new client, reads balances, is
 * refused another merchant's charge, pays through the device-style confirmation, polls the charge and signs
 * out; this side plays the player on Chargeport (enters the code, allows, types the PIN).
 * Not run here: Unity. The Unity-only transport and the sample's MonoBehaviour are only typechecked, against
 * a stub of UnityEngine (typecheckCsharpSdkForUnity); the CORS answers a WebGL build needs are checked below.
 * Needs `mcs` and `mono` (Debian: mono-mcs, mono-runtime, libmono-system-net-http4.0-cil; .ci/run installs them).
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { compileCsharpSdkTest, typecheckCsharpSdkForUnity } from '@/test/compile-csharp-sdk';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { setPin } from '@/lib/accounts/set-pin';
import { createUser } from '@/lib/accounts/create-user';
import { findUserById } from '@/lib/accounts/find-user';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { merchantMembers } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { handleOidcRequest } from '@/lib/oauth/handle-oidc-request';
import { registerOAuthApp } from '@/lib/oauth/register-oauth-app';
import { confirmPaymentRequest, findPaymentRequestByCode } from '@/lib/oauth/payment-requests';
import { listWallets } from '@/lib/wallets/list-wallets';
import { newUser, uniqueEmail } from '@/test/accounts';
import { callRoute, newMerchant, type TestMerchant } from '@/test/fixtures';
import { approveDeviceCode } from '@/test/oidc-browser';
import { GET as chargeStatusRoute } from '@/app/api/checkout/[chargeId]/status/route';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import { GET as balancesRoute, OPTIONS as balancesPreflight } from '@/app/api/oauth/balances/route';
import { GET as getRequestRoute } from '@/app/api/oauth/payment-requests/[requestId]/route';
import { POST as createRequestRoute, OPTIONS as requestsPreflight } from '@/app/api/oauth/payment-requests/route';

const session = vi.hoisted(() => ({ userId: undefined as string | undefined }));
vi.mock('@/lib/auth/session', () => ({
  getSessionUser: async () => (session.userId ? findUserById(session.userId) : undefined),
}));

const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
const PIN = '583920';

let server: Server;
let baseUrl: string;
/** Every request the server received, as the recording transport prints it ("METHOD /path"). */
const received: string[] = [];

/** The app's routes the SDK calls, behind a real HTTP server. */
async function dispatch(req: IncomingMessage): Promise<Response> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? '/', baseUrl);
  const request = new Request(url, { method, headers, body: ['GET', 'HEAD'].includes(method) ? undefined : Buffer.concat(chunks) });
  const { pathname } = url;
  received.push(`${method} ${pathname}`);
  if (pathname.startsWith('/oidc/') || pathname.startsWith('/.well-known/')) return handleOidcRequest(request);
  if (pathname === '/api/oauth/balances') return method === 'OPTIONS' ? balancesPreflight(request) : balancesRoute(request);
  if (pathname === '/api/oauth/payment-requests') return method === 'OPTIONS' ? requestsPreflight(request) : createRequestRoute(request);
  const requestPath = /^\/api\/oauth\/payment-requests\/([^/]+)$/.exec(pathname);
  if (requestPath) return getRequestRoute(request, { params: Promise.resolve({ requestId: decodeURIComponent(requestPath[1]!) }) });
  const statusPath = /^\/api\/checkout\/([^/]+)\/status$/.exec(pathname);
  if (statusPath) return chargeStatusRoute(request, { params: Promise.resolve({ chargeId: decodeURIComponent(statusPath[1]!) }) });
  return new Response('not found', { status: 404 });
}

async function usdcCharge(of: TestMerchant): Promise<string> {
  const res = await callRoute(createChargeRoute, {
    apiKey: of.liveKey,
    body: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, amount: '0.75' } },
  });
  return res.json.data.chargeId;
}

beforeAll(async () => {
  server = createServer((req, res) => {
    void dispatch(req)
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('C# game SDK', () => {
  it(
    'through a custom transport and the sample: device-flow sign-in, refresh, resume, balances, pay with the PIN on Chargeport, sign-out',
    { timeout: 90_000 },
    async () => {
      const exe = compileCsharpSdkTest();
      const merchant = await newMerchant({ name: 'Pixel Quest' });
      const owner = await newUser();
      await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: owner, role: 'owner' });
      const { clientId } = await registerOAuthApp({
        userId: owner,
        merchantId: merchant.id,
        app: { name: 'Pixel Quest', redirectUris: ['com.pixelquest.game:/callback'], clientType: 'public' },
      });
      const email = uniqueEmail('player');
      const player = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
      await setPin({ userId: player.id, pin: PIN, confirm: PIN });
      received.length = 0;
      const evm = (await listWallets(player.id)).find((w) => w.family === 'evm')!;
      await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: evm.address as Hex });
      session.userId = player.id;
      const chargeId = await usdcCharge(merchant);
      const foreignChargeId = await usdcCharge(await newMerchant({ name: 'Other Studio' }));

      const child = spawn('mono', [exe, baseUrl, clientId, chargeId, foreignChargeId], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += String(chunk)));
      const lines: string[] = [];
      for await (const line of createInterface({ input: child.stdout })) {
        lines.push(line);
        const [word, arg] = line.split(' ');
        if (word === 'SIGN-IN') expect((await approveDeviceCode(arg!, player.id)).status).toBe(200);
        if (word === 'PAY') {
          const found = await findPaymentRequestByCode({ userCode: arg!, userId: player.id });
          await confirmPaymentRequest({ requestId: found.id, userId: player.id, pin: PIN });
        }
      }
      const code = await new Promise<number | null>((resolve) =>
        child.exitCode === null ? child.once('exit', (exitCode) => resolve(exitCode)) : resolve(child.exitCode),
      );
      expect({ code, stderr, last: lines.at(-1) }).toMatchObject({ code: 0, last: 'OK' });
      expect(lines).toContain(`USER ${player.id} ${email} True`);
      expect(lines).toContain(`RESUMED ${player.id}`);
      expect(lines).toContain('AFTER-SIGN-OUT invalid_grant');
      expect(lines.find((l) => l.startsWith('ADDRESSES'))).toContain(evm.address);
      expect(lines.find((l) => l.startsWith('USDC '))).toMatch(/^USDC \d+(\.\d+)? \d+$/);
      expect(lines).toContain('FOREIGN 404 not_found');
      expect(lines.find((l) => l.startsWith('PAID'))).toMatch(/^PAID confirmed 0x[0-9a-f]{64}$/);
      expect(lines.find((l) => l.startsWith('CHARGE'))).toMatch(/^CHARGE (pending|succeeded)$/);

      // Every request went through the custom transport: it saw exactly what the server received.
      const requests = lines.filter((l) => l.startsWith('REQUEST ')).map((l) => l.slice('REQUEST '.length));
      expect(requests.map((r) => r.split(' ').slice(0, 2).join(' '))).toEqual(received);
      expect(requests).toEqual(
        expect.arrayContaining([
          'POST /oidc/token 400', // the stale saved token, before the device flow
          'POST /oidc/device/auth 200',
          'GET /oidc/me bearer 200',
          'GET /api/oauth/balances bearer 200',
          'POST /api/oauth/payment-requests bearer 404',
          `GET /api/checkout/${chargeId}/status 200`,
        ]),
      );
      expect(Number(lines.find((l) => l.startsWith('DELAYS '))!.split(' ')[1])).toBeGreaterThan(0);
    },
  );

  it('compiles for Unity against a UnityEngine stub (a typecheck only: no Unity runs here)', { timeout: 60_000 }, () => {
    expect(() => typecheckCsharpSdkForUnity()).not.toThrow();
  });

  it("a Unity WebGL build may call what the SDK calls: CORS for the game's origin", async () => {
    const merchant = await newMerchant({ name: 'Web Quest' });
    const owner = await newUser();
    await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: owner, role: 'owner' });
    const { clientId } = await registerOAuthApp({
      userId: owner,
      merchantId: merchant.id,
      app: { name: 'Web Quest', redirectUris: ['https://game.example/webquest/callback'], clientType: 'public' },
    });
    const game = 'https://game.example';
    const form = (fields: Record<string, string>) => ({
      method: 'POST',
      headers: { origin: game, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    const preflight = (path: string, method: string, origin = game) =>
      fetch(`${baseUrl}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization' },
      });

    // Sign-in (oidc-provider): the game's origin is that of one of the app's redirect URIs.
    const device = await fetch(`${baseUrl}/oidc/device/auth`, form({ client_id: clientId, scope: 'openid wallet:read payments' }));
    expect(device.status).toBe(200);
    expect(device.headers.get('access-control-allow-origin')).toBe(game);
    const { device_code } = (await device.json()) as { device_code: string };
    const token = await fetch(
      `${baseUrl}/oidc/token`,
      form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code, client_id: clientId }),
    );
    expect(token.status).toBe(400);
    expect(token.headers.get('access-control-allow-origin')).toBe(game);
    const elsewhere = await fetch(`${baseUrl}/oidc/device/auth`, {
      ...form({ client_id: clientId, scope: 'openid' }),
      headers: { origin: 'https://other.example', 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight('/oidc/me', 'GET')).headers.get('access-control-allow-origin')).toBe(game);

    // In-app routes: the bearer token is the credential, any origin.
    for (const path of ['/api/oauth/balances', '/api/oauth/payment-requests']) {
      const answer = await preflight(path, path.endsWith('balances') ? 'GET' : 'POST');
      expect(answer.headers.get('access-control-allow-origin')).toBe(game);
      expect(answer.headers.get('access-control-allow-headers')).toContain('authorization');
    }
    const me = await fetch(`${baseUrl}/api/oauth/balances`, { headers: { origin: game, authorization: 'Bearer nope' } });
    expect({ status: me.status, origin: me.headers.get('access-control-allow-origin') }).toEqual({ status: 401, origin: '*' });

    // The charge status the SDK polls (a simple GET: no preflight).
    const status = await fetch(`${baseUrl}/api/checkout/${await usdcCharge(merchant)}/status`, { headers: { origin: game } });
    expect({ status: status.status, origin: status.headers.get('access-control-allow-origin') }).toEqual({ status: 200, origin: '*' });
  });
});
