import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consumeAuthRateLimit } from '@/lib/rate-limit/auth-rate-limit';
import { resetEnvCache } from '@/lib/env';
import { randomBase62 } from '@/lib/ids';
import { clientIpFrom, rateLimitKeyOfIp } from './client-ip';
import { recordPeerAddresses } from './peer-address';

/**
 * A real HTTP server with the peer-address listener installed, as instrumentation.ts installs it in
 * the Next.js server: each request's headers go to `onRequest`, whose answer is sent back as JSON.
 */
let server: http.Server;
let onRequest: (headers: { get(name: string): string | null }) => Promise<unknown> = async (headers) => clientIpFrom(headers);

beforeAll(async () => {
  recordPeerAddresses();
  server = http.createServer((req, res) => {
    const headers = { get: (name: string) => [req.headers[name.toLowerCase()] ?? null].flat().join(', ') || null };
    onRequest(headers).then(
      (answer) => res.end(JSON.stringify({ answer })),
      (error: { code?: string }) => res.end(JSON.stringify({ error: error.code ?? String(error) })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  delete process.env.TRUSTED_PROXY_HOPS;
  delete process.env.CLIENT_IP_HEADER;
  resetEnvCache();
});

function configure(vars: Record<string, string>): void {
  Object.assign(process.env, vars);
  resetEnvCache();
}

/** Sends a request from `from` (any 127.x.y.z address is this machine) with the given headers. */
function send(headers: Record<string, string>, from = '127.0.0.1'): Promise<{ answer?: unknown; error?: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/', headers, localAddress: from },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve(JSON.parse(body)));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** A loopback source address of its own, so this test's limit buckets are not shared with another run. */
const freshLoopback = () =>
  `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;

describe('clientIpFrom without a configured proxy (the default)', () => {
  it('is the socket peer; X-Forwarded-For and X-Real-IP are ignored', async () => {
    const from = freshLoopback();
    expect(await send({}, from)).toEqual({ answer: from });
    expect(await send({ 'x-forwarded-for': '203.0.113.9', 'x-real-ip': '203.0.113.10' }, from)).toEqual({ answer: from });
  });

  it('ignores a CDN header that is not configured', async () => {
    expect(await send({ 'cf-connecting-ip': '203.0.113.9' })).toEqual({ answer: '127.0.0.1' });
  });

  it('is null for a request no listener stamped (a handler called directly)', () => {
    expect(clientIpFrom(new Headers({ 'x-forwarded-for': '203.0.113.9' }))).toBeNull();
  });

  it('cannot be forged by a client sending a stamp-like header', async () => {
    expect(await send({ 'x-chargeport-peer': '203.0.113.9', 'x-chargeport-peer-0': '203.0.113.9' })).toEqual({ answer: '127.0.0.1' });
  });
});

describe('clientIpFrom behind TRUSTED_PROXY_HOPS reverse proxies', () => {
  it('one proxy: the entry it appended (the right-most), whatever the client wrote before it', async () => {
    configure({ TRUSTED_PROXY_HOPS: '1' });
    expect(await send({ 'x-forwarded-for': '198.51.100.7' })).toEqual({ answer: '198.51.100.7' });
    expect(await send({ 'x-forwarded-for': '6.6.6.6, 198.51.100.7' })).toEqual({ answer: '198.51.100.7' });
  });

  it('two proxies: the entry left of the one the inner proxy appended', async () => {
    configure({ TRUSTED_PROXY_HOPS: '2' });
    expect(await send({ 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.0.0.2' })).toEqual({ answer: '198.51.100.7' });
  });

  it('a request that bypassed the proxies: the left-most entry known', async () => {
    configure({ TRUSTED_PROXY_HOPS: '2' });
    expect(await send({})).toEqual({ answer: '127.0.0.1' });
  });

  it('normalises IPv4-mapped IPv6 and refuses what is not an address', async () => {
    configure({ TRUSTED_PROXY_HOPS: '1' });
    expect(await send({ 'x-forwarded-for': '::ffff:198.51.100.7' })).toEqual({ answer: '198.51.100.7' });
    expect(await send({ 'x-forwarded-for': 'not-an-ip' })).toEqual({ answer: null });
    expect(await send({ 'x-forwarded-for': '127.1' })).toEqual({ answer: null });
  });
});

describe('clientIpFrom with a CDN client-IP header (CLIENT_IP_HEADER)', () => {
  it('uses the named header when it holds an address, else the socket peer', async () => {
    configure({ CLIENT_IP_HEADER: 'CF-Connecting-IP' });
    expect(await send({ 'cf-connecting-ip': '2001:db8::1', 'x-forwarded-for': '6.6.6.6' })).toEqual({ answer: '2001:db8::1' });
    expect(await send({ 'cf-connecting-ip': 'garbage', 'x-forwarded-for': '6.6.6.6' })).toEqual({ answer: '127.0.0.1' });
  });
});

describe('limits keyed by client IP hold against a client that lies about its address', () => {
  beforeAll(() => {
    // What app/(auth)/actions.ts does for every code request and code check.
    onRequest = async (headers) => {
      await consumeAuthRateLimit({ ip: clientIpFrom(headers) ?? 'local', address: `x-${randomBase62(8)}@example.test` });
      return 'ok';
    };
  });
  afterAll(() => {
    onRequest = async (headers) => clientIpFrom(headers);
  });

  it('a fresh X-Forwarded-For per request does not reset the sign-in / code limit (30 per IP)', async () => {
    const from = freshLoopback();
    for (let i = 0; i < 30; i++) expect(await send({ 'x-forwarded-for': `203.0.113.${i}` }, from)).toEqual({ answer: 'ok' });
    expect(await send({ 'x-forwarded-for': '198.51.100.250' }, from)).toEqual({ error: 'rate_limited' });
  });

  it('behind one proxy, rotating the part the client wrote does not reset it either', async () => {
    configure({ TRUSTED_PROXY_HOPS: '1' });
    const client = `198.51.100.${Math.floor(Math.random() * 250)}`;
    const spoofs = Array.from({ length: 31 }, (_, i) => `203.0.113.${i}, ${client}`);
    for (const header of spoofs.slice(0, 30)) expect(await send({ 'x-forwarded-for': header })).toEqual({ answer: 'ok' });
    expect(await send({ 'x-forwarded-for': spoofs[30]! })).toEqual({ error: 'rate_limited' });
  });
});

describe('per-IP limits bucket IPv6 by /64 (N15)', () => {
  /** A random /64 under 2001:db8::/32 (documentation space), so runs do not share buckets. */
  const freshPrefix = () =>
    `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:${Math.floor(Math.random() * 0xffff).toString(16)}`;

  it('keys an IPv6 address by its /64, an IPv4 address (mapped or not) as itself, anything else as given', () => {
    expect(rateLimitKeyOfIp('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(rateLimitKeyOfIp('2001:DB8:1:2::1')).toBe(rateLimitKeyOfIp('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(rateLimitKeyOfIp('2001:db8:1:3::1')).not.toBe(rateLimitKeyOfIp('2001:db8:1:2::1'));
    expect(rateLimitKeyOfIp('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(rateLimitKeyOfIp('::ffff:1.2.3.4')).toBe(rateLimitKeyOfIp('1.2.3.4'));
    expect(rateLimitKeyOfIp('1.2.3.5')).not.toBe(rateLimitKeyOfIp('1.2.3.4'));
    expect(rateLimitKeyOfIp('local')).toBe('local');
    expect(rateLimitKeyOfIp(null)).toBe('unknown');
  });

  it('two addresses of one /64 share the sign-in limit; another /64 has its own; the client IP itself stays whole', async () => {
    configure({ CLIENT_IP_HEADER: 'CF-Connecting-IP' });
    onRequest = async (headers) => {
      await consumeAuthRateLimit({ ip: clientIpFrom(headers) ?? 'local', address: `x-${randomBase62(8)}@example.test` });
      return clientIpFrom(headers);
    };
    try {
      const prefix = freshPrefix();
      // 30 per IP: a new interface id per request (what a /64 gives for free) spends the same budget.
      for (let i = 0; i < 30; i++) {
        const address = `${prefix}:${(i + 1).toString(16)}:1:1:1`;
        expect(await send({ 'cf-connecting-ip': address })).toEqual({ answer: address });
      }
      expect(await send({ 'cf-connecting-ip': `${prefix}:ffff:ffff:ffff:ffff` })).toEqual({ error: 'rate_limited' });
      // A neighbouring /64 is another customer.
      const other = `${freshPrefix()}::1`;
      expect(await send({ 'cf-connecting-ip': other })).toEqual({ answer: other });
      // IPv4-mapped IPv6 is the IPv4 address's bucket.
      const v4 = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
      for (let i = 0; i < 15; i++) await send({ 'cf-connecting-ip': v4 });
      for (let i = 0; i < 15; i++) expect(await send({ 'cf-connecting-ip': `::ffff:${v4}` })).toEqual({ answer: v4 });
      expect(await send({ 'cf-connecting-ip': v4 })).toEqual({ error: 'rate_limited' });
    } finally {
      onRequest = async (headers) => clientIpFrom(headers);
    }
  });
});
