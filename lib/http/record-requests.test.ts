/**
 * One JSON line per request: method, route (ids replaced, no query), status, duration, request id and
 * the merchant an API key named — never a secret — and the request in the duration histogram.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { metrics } from '@/lib/metrics/metrics';
import { noteRequestMerchant, recordRequests, routeOf } from './record-requests';

let server: Server;
let base: string;

beforeAll(async () => {
  process.env.LOG_LEVEL = 'info'; // the suite's is error; request lines are info
  resetEnvCache();
  recordRequests();
  server = createServer((request, response) => {
    // As withApiKey does, after an await: the request's context survives async work.
    void Promise.resolve().then(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (request.url?.startsWith('/api/charges')) noteRequestMerchant('mer_TestMerchant01');
      response.setHeader('x-request-id', request.headers['x-request-id'] ?? 'generated-by-handler');
      response.writeHead(request.url?.includes('missing') ? 404 : 200).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function logLinesOf(run: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    spy.mockRestore();
  }
  return lines.flatMap((line) => line.split('\n').filter(Boolean)).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('the request log', () => {
  it('writes one line per request with method, route, status, duration, request id and merchant', async () => {
    const lines = await logLinesOf(async () => {
      await fetch(`${base}/api/charges/ch_AbCdEf123456?apiKey=cp_test_SECRETSECRET123`, { headers: { 'x-request-id': 'req-1' } });
      await fetch(`${base}/checkout/missing`);
    });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 'info',
      msg: 'request',
      method: 'GET',
      route: '/api/charges/:id',
      status: 200,
      requestId: 'req-1',
      merchantId: 'mer_TestMerchant01',
    });
    expect(typeof lines[0]!.durationMs).toBe('number');
    expect(lines[0]!.durationMs as number).toBeGreaterThan(0);
    expect(lines[1]).toMatchObject({ method: 'GET', route: '/checkout/missing', status: 404, requestId: 'generated-by-handler' });
    expect(lines[1]).not.toHaveProperty('merchantId');
    expect(JSON.stringify(lines)).not.toContain('SECRET');
  });

  it('observes each request in chargeport_http_request_duration_seconds by method, route and status', async () => {
    await fetch(`${base}/api/charges/ch_Zyx987654321`);
    const text = await metrics().registry.metrics();
    expect(text).toMatch(/^chargeport_http_request_duration_seconds_count\{method="GET",route="\/api\/charges\/:id",status="200"\} [1-9]/m);
  });

  it('labels routes without ids, queries or unbounded segments', () => {
    expect(routeOf('/api/charges/ch_1a2B3c4D5e6F/refunds?x=1')).toBe('/api/charges/:id/refunds');
    expect(routeOf('/checkout/ch_1a2B3c4D5e6F')).toBe('/checkout/:id');
    expect(routeOf('/_next/static/chunks/abc.js')).toBe('/_next/*');
    expect(routeOf('/api/wallets/0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359')).toBe('/api/wallets/:id');
    expect(routeOf('/api/health')).toBe('/api/health');
  });
});
