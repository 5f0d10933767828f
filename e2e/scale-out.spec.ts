/**
 * Scale-out, proven: two production app instances (the standalone server, jobs off) and one `npm run worker`
 * behind HAProxy, on the e2e stack's PostgreSQL and local chains (LOCAL_CHAIN_NODES=true). Each thing that
 * must happen once happens once across instances: charges per Idempotency-Key, a payment's success and its
 * webhook per endpoint, a refund and its transfer, a balance payment and its sweep; a revoked key stops
 * working everywhere within a second; and
 * killing an instance mid-load loses no charge (the client retries with the same keys through the balancer).
 * The e2e stack's own web process and worker run beside them: more instances, the same guarantees.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from './fixtures';
import { signUpAndSignIn } from './account-helpers';
import { admin, createVerifiedMerchant, withE2eDatabase } from './admin';
import type { CreateChargeInput } from './api';
import { fundOnPolygon, sendNativeFromOutside } from './chain';
import { productionInstanceEnv } from './standalone-server';
import { uniqueEmail } from './outbox';

const STANDALONE = path.resolve('.next/standalone');
const SERVER = path.join(STANDALONE, 'server.js');
const NATIVE = '0x0000000000000000000000000000000000000000';
const USDC = { symbol: 'USDC', chain: 'POLYGON', tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359' } as const;

/** SCALE_E2E_PORT_BASE pins the ports (base … base+3) on shared machines; otherwise the OS picks free ones. */
async function port(offset: number): Promise<number> {
  const base = Number(process.env.SCALE_E2E_PORT_BASE ?? 0);
  if (base) return base + offset;
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: free } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return free;
}

function stackEnv(appUrl: string): Record<string, string | undefined> {
  return { ...productionInstanceEnv(appUrl), WEBHOOKS_ALLOW_LOOPBACK: 'true' };
}

interface Proc {
  name: string;
  child: ChildProcess;
  output: string;
}

function launch(name: string, command: string, args: string[], options: { cwd?: string; env: Record<string, string | undefined> }): Proc {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env as NodeJS.ProcessEnv,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc: Proc = { name, child, output: '' };
  child.stdout?.on('data', (chunk: Buffer) => (proc.output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (proc.output += chunk.toString()));
  return proc;
}

async function waitFor(proc: Proc, isReady: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await isReady().catch(() => false))) {
    if (Date.now() > deadline || proc.child.exitCode !== null) throw new Error(`${proc.name} did not become ready:\n${proc.output}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const isReady = (base: string) => async () => (await fetchFresh(`${base}/api/health/ready`)).ok;

function stop(proc: Proc | undefined, signal: NodeJS.Signals = 'SIGTERM'): void {
  if (proc?.child.pid && proc.child.exitCode === null && proc.child.signalCode === null) {
    try {
      process.kill(-proc.child.pid, signal);
    } catch {
      // Already gone.
    }
  }
}

function haproxyConfig(front: number, backends: number[]): string {
  return [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 30s',
    '  timeout server 30s',
    // A request whose connection never reached an instance is safe to send to the other one.
    '  retries 3',
    '  option redispatch',
    '  retry-on conn-failure',
    'frontend app',
    `  bind 127.0.0.1:${front}`,
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk GET /api/health/ready',
    ...backends.map((p, i) => `  server web${i + 1} 127.0.0.1:${p} check inter 500 fall 2 rise 1`),
    '',
  ].join('\n');
}

/** A merchant's webhook receiver on 127.0.0.1: records each event it is sent (test-mode endpoints may use loopback). */
async function startReceiver(): Promise<{ url: string; events: { path: string; type: string; chargeId?: string }[]; close: () => void }> {
  const events: { path: string; type: string; chargeId?: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data?: { charge?: { id?: string } } };
      events.push({ path: req.url ?? '', type: body.type, chargeId: body.data?.charge?.id });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, events, close: () => server.close() };
}

/**
 * fetch, sent once more when the instance closed a kept-alive connection just as it was reused ("other side
 * closed": the request was never read), as HTTP clients do. Seen between tests, after the idle timeout.
 */
async function fetchFresh(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET') return fetch(url, init);
    throw error;
  }
}

async function post(url: string, apiKey: string, body: unknown, idempotencyKey?: string): Promise<{ status: number; json: any }> {
  const response = await fetchFresh(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json().catch(() => null) };
}

/**
 * createCharge by plain fetch, not the merchantApi fixture: each instance and the balancer are addressed
 * directly, through a client that retries a cut connection itself (kill -9, kept-alive sockets closed).
 * The body is still typed by the API's schema.
 */
const createCharge = (base: string, apiKey: string, body: CreateChargeInput, idempotencyKey?: string) =>
  post(`${base}/api/createCharge`, apiKey, body, idempotencyKey);

/** As a careful client does: the same Idempotency-Key again on a network error or a 5xx, until an answer. */
async function createChargeWithRetries(base: string, apiKey: string, key: string): Promise<{ chargeId: string; attempts: number }> {
  for (let attempt = 1; attempt <= 40; attempt++) {
    const answer = await createCharge(base, apiKey, { chargeData: { ...USDC, amount: '1.25' } }, key).catch(() => undefined);
    // A 200 whose body was cut off by the kill is no answer either: ask again with the same key.
    if (answer?.status === 200 && answer.json?.data) return { chargeId: answer.json.data.chargeId, attempts: attempt };
    if (answer && answer.status >= 400 && answer.status < 500)
      throw new Error(`createCharge ${key}: ${answer.status} ${JSON.stringify(answer.json)}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`createCharge ${key}: no answer after 40 attempts`);
}

const chargeCount = (merchantId: string) =>
  withE2eDatabase(async (sql) => Number((await sql`select count(*)::int as n from charges where merchant_id = ${merchantId}`)[0]!.n));

test.describe.configure({ mode: 'serial' });

test.describe('two instances and a worker behind HAProxy', () => {
  test.skip(!existsSync(SERVER), 'no .next/standalone/server.js: run `next build` first (npm test does)');
  let web: Proc[] = [];
  let worker: Proc | undefined;
  let balancer: Proc | undefined;
  let lb = '';
  let instances: string[] = [];

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    if (spawnSync('haproxy', ['-v']).error) {
      throw new Error('HAProxy is missing: install the Debian package `haproxy` (apt-get install -y haproxy); .ci/run does.');
    }
    cpSync('.next/static', path.join(STANDALONE, '.next/static'), { recursive: true });
    if (existsSync('public')) cpSync('public', path.join(STANDALONE, 'public'), { recursive: true });
    const [front, a, b] = [await port(0), await port(1), await port(2)];
    lb = `http://127.0.0.1:${front}`;
    instances = [a, b].map((p) => `http://127.0.0.1:${p}`);
    web = [a, b].map((p, i) =>
      launch(`web${i + 1}`, process.execPath, [SERVER], {
        cwd: STANDALONE,
        env: { ...stackEnv(lb), PORT: String(p), HOSTNAME: '127.0.0.1' },
      }),
    );
    worker = launch('worker', 'node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/worker.mts'], { env: stackEnv(lb) });
    const dir = mkdtempSync(path.join(tmpdir(), 'chargeport-haproxy-'));
    writeFileSync(path.join(dir, 'haproxy.cfg'), haproxyConfig(front, [a, b]));
    balancer = launch('haproxy', 'haproxy', ['-db', '-f', path.join(dir, 'haproxy.cfg')], { env: { ...process.env } });
    await Promise.all(web.map((proc, i) => waitFor(proc, isReady(instances[i]!))));
    await waitFor(worker, async () => worker!.output.includes('background jobs started'));
    await waitFor(balancer, isReady(lb));
  });

  test.afterEach(({}, testInfo) => {
    if (testInfo.status === testInfo.expectedStatus) return;
    for (const proc of [balancer, worker, ...web]) if (proc) console.log(`--- ${proc.name}:\n${proc.output.slice(-4_000)}`);
  });

  test.afterAll(() => {
    for (const proc of [balancer, worker, ...web]) stop(proc);
  });

  test('concurrent createCharge with shared Idempotency-Keys: one charge per key', async () => {
    const merchant = await createVerifiedMerchant('Scale Idempotency Studio');
    const keys = Array.from({ length: 8 }, (_, i) => `scale-idem-${Date.now()}-${i}`);
    const answers = await Promise.all(
      keys.flatMap((key) =>
        Array.from({ length: 4 }, () => createCharge(lb, merchant.liveKey, { chargeData: { ...USDC, amount: '3' } }, key)),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const byKey = new Map<string, Set<string>>();
    answers.forEach((answer, i) => {
      const key = keys[Math.floor(i / 4)]!;
      byKey.set(key, (byKey.get(key) ?? new Set()).add(answer.json.data.chargeId));
    });
    expect([...byKey.values()].map((ids) => ids.size)).toEqual(keys.map(() => 1));
    expect(await chargeCount(merchant.merchantId)).toBe(keys.length);
  });

  test('a wallet payment succeeds once, one charge.succeeded per endpoint; a refund asked on both instances at once is made once', async () => {
    test.setTimeout(90_000);
    const merchant = await createVerifiedMerchant('Scale Payments Studio');
    const receiver = await startReceiver();
    try {
      for (const name of ['one', 'two']) {
        const created = await post(`${lb}/api/webhook-endpoints`, merchant.testKey, { url: `${receiver.url}/${name}` });
        expect(created.status, JSON.stringify(created.json)).toBe(200);
      }
      const charge = await createCharge(lb, merchant.testKey, {
        chargeData: { symbol: 'POL', chain: 'POLYGON', tokenAddress: NATIVE, amount: '0.2' },
        isTest: true,
      });
      expect(charge.status, JSON.stringify(charge.json)).toBe(200);
      const chargeId: string = charge.json.data.chargeId;
      const [deposit] = await withE2eDatabase(
        (sql) => sql<{ address: string }[]>`select address from deposit_addresses where charge_id = ${chargeId}`,
      );
      await sendNativeFromOutside('POLYGON_AMOY', deposit!.address, '0.2');

      const succeededAt = (path: string) =>
        receiver.events.filter((e) => e.path === path && e.type === 'charge.succeeded' && e.chargeId === chargeId);
      await expect.poll(() => [succeededAt('/one').length, succeededAt('/two').length], { timeout: 45_000 }).toEqual([1, 1]);
      // Time for a duplicate to show up if one were coming (the relay polls every second).
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect([succeededAt('/one').length, succeededAt('/two').length]).toEqual([1, 1]);
      const succeeded = await withE2eDatabase(
        (sql) =>
          sql`select 1 from charge_events where charge_id = ${chargeId} and to_status = 'succeeded' and from_status is distinct from 'succeeded'`,
      );
      expect(succeeded).toHaveLength(1);

      // The same refund, asked of each instance directly and at the same time.
      const askBoth = (key: string) =>
        Promise.all(instances.map((base) => post(`${base}/api/charges/${chargeId}/refunds`, merchant.testKey, {}, key)));
      let refunds = await askBoth(`scale-refund-${Date.now()}`);
      // A sweep moving the funds at that very moment answers 409 "just moved, try again": ask again, as a
      // client would (a new key: that answer made no refund), still of both instances at once.
      for (let round = 1; round < 20 && refunds.every((r) => r.status === 409 && /just moved/.test(r.json?.error?.message)); round++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        refunds = await askBoth(`scale-refund-${Date.now()}-${round}`);
      }
      expect(
        refunds.map((r) => r.status),
        JSON.stringify(refunds.map((r) => r.json)),
      ).toEqual([200, 200]);
      expect(refunds[0]!.json.data.id).toBe(refunds[1]!.json.data.id);
      const rows = await withE2eDatabase(
        (sql) => sql<{ refunds: number; transfers: number }[]>`select
          (select count(*)::int from refunds where charge_id = ${chargeId}) as refunds,
          (select count(*)::int from outbound_transfers where charge_id = ${chargeId} and purpose = 'refund') as transfers`,
      );
      expect(rows[0]).toEqual({ refunds: 1, transfers: 1 });
    } finally {
      receiver.close();
    }
  });

  test('a balance payment asked of both instances at once is made once, and swept to the merchant once', async ({ page }) => {
    test.setTimeout(120_000);
    const merchant = await createVerifiedMerchant('Scale Balance Studio');
    const charge = await createCharge(lb, merchant.liveKey, { chargeData: { ...USDC, amount: '2.5' } });
    expect(charge.status, JSON.stringify(charge.json)).toBe(200);
    const chargeId: string = charge.json.data.chargeId;

    // A consumer of the same deployment (one database, one AUTH_SECRET): signed in once, funded.
    await signUpAndSignIn(page, uniqueEmail('scale-payer'), '482915');
    await fundOnPolygon((await page.getByTestId('wallet-address').first().textContent())!.trim());
    const cookie = (await page.context().cookies()).map(({ name, value }) => `${name}=${value}`).join('; ');

    // The same click arriving at both instances at once (a double submit split by the balancer).
    const answers = await Promise.all(
      instances.map((base) =>
        fetchFresh(`${base}/api/charges/${chargeId}/pay`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie, origin: lb },
          body: JSON.stringify({ pin: '482915' }),
        }).then(async (response) => ({ status: response.status, json: (await response.json()) as any })),
      ),
    );
    const paid = answers.filter((answer) => answer.status === 200);
    expect(paid.length, JSON.stringify(answers)).toBeGreaterThanOrEqual(1);
    // The other one gets the same transfer back, or is told a payment is already in flight.
    for (const answer of answers) {
      if (answer.status === 200) expect(answer.json.data.transferId).toBe(paid[0]!.json.data.transferId);
      else expect(answer.status, JSON.stringify(answer.json)).toBe(409);
    }

    const counts = () =>
      withE2eDatabase(
        async (sql) =>
          (
            await sql<{ payments: number; sweeps: number; status: string }[]>`select
              (select count(*)::int from outbound_transfers where charge_id = ${chargeId} and purpose = 'balance_payment') as payments,
              (select count(*)::int from outbound_transfers where charge_id = ${chargeId} and purpose = 'sweep') as sweeps,
              (select status from charges where id = ${chargeId}) as status`
          )[0]!,
      );
    // Two sweepers race for it here (this worker and the e2e stack's own): the charge row lock lets one through.
    await expect.poll(counts, { timeout: 90_000 }).toMatchObject({ payments: 1, sweeps: 1, status: 'succeeded' });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await counts()).toMatchObject({ payments: 1, sweeps: 1, status: 'succeeded' });
  });

  test('a revoked API key is refused by both instances within a second', async () => {
    const merchant = await createVerifiedMerchant('Scale Revocation Studio');
    const ask = (base: string) => fetchFresh(`${base}/api/charges`, { headers: { 'x-api-key': merchant.liveKey } }).then((r) => r.status);
    // Each instance has seen (and cached) the key.
    expect(await Promise.all(instances.map(ask))).toEqual([200, 200]);
    const [key] = await withE2eDatabase(
      (sql) => sql<{ id: string }[]>`select id from api_keys where merchant_id = ${merchant.merchantId} and mode = 'live'`,
    );
    admin('key', 'revoke', key!.id);
    const revokedAt = Date.now();
    const refusedAfter = await Promise.all(
      instances.map(async (base) => {
        while ((await ask(base)) !== 401) {
          if (Date.now() - revokedAt > 5_000) return Infinity;
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        return Date.now() - revokedAt;
      }),
    );
    expect(Math.max(...refusedAfter), `refused after ${refusedAfter.join(' ms, ')} ms`).toBeLessThan(1_000);
  });

  test('kill -9 of one instance mid-load: every charge exists exactly once', async () => {
    test.setTimeout(90_000);
    const merchant = await createVerifiedMerchant('Scale Crash Studio');
    const keys = Array.from({ length: 40 }, (_, i) => `scale-crash-${Date.now()}-${i}`);
    const results: { chargeId: string; attempts: number }[] = [];
    let next = 0;
    const client = async () => {
      while (next < keys.length) {
        const key = keys[next++]!;
        results.push(await createChargeWithRetries(lb, merchant.liveKey, key));
      }
    };
    const load = Promise.all(Array.from({ length: 6 }, client));
    await expect.poll(() => results.length, { timeout: 30_000, intervals: [20] }).toBeGreaterThanOrEqual(8);
    stop(web[1], 'SIGKILL');
    await load;
    expect(results).toHaveLength(keys.length);
    expect(new Set(results.map((r) => r.chargeId)).size).toBe(keys.length);
    expect(await chargeCount(merchant.merchantId)).toBe(keys.length);
    // The survivor still answers through the balancer.
    expect((await fetch(`${lb}/api/health/ready`)).ok).toBe(true);
  });
});
