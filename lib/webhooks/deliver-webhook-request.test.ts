import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { addressRefusal, checkWebhookUrl } from './check-webhook-url';
import { deliverWebhookRequest, pinnedLookup, resolveSafeAddress, type HostLookup } from './deliver-webhook-request';
import { RECEIVER_TEST_CERT, RECEIVER_TEST_KEY } from '@/test/tls-fixture';

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** A lookup that answers from a script, one answer per call, and counts its calls. */
function scriptedLookup(...answers: (string[] | Error)[]): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<LookupAddress[]> => {
    calls.push(hostname);
    const answer = answers[Math.min(calls.length, answers.length) - 1];
    if (answer === undefined) throw new Error('no scripted answer');
    if (answer instanceof Error) throw answer;
    return answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

describe('checkWebhookUrl: refused targets', () => {
  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://127.1/hook', 'loopback'],
    ['https://2130706433/hook', 'loopback'],
    ['https://0x7f000001/hook', 'loopback'],
    ['https://0177.0.0.1/hook', 'loopback'],
    ['https://127.0.0.1./hook', 'loopback'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['https://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['https://[::ffff:169.254.169.254]/', 'linkLocal'],
    ['https://10.0.0.1/', 'private'],
    ['https://172.16.0.1/', 'private'],
    ['https://172.31.255.255/', 'private'],
    ['https://192.168.1.1/', 'private'],
    ['https://100.64.0.1/', 'carrierGradeNat'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://0/', 'unspecified'],
    ['https://[::]/', 'unspecified'],
    ['https://255.255.255.255/', 'broadcast'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://240.0.0.1/', 'reserved'],
    ['https://[fd00::1]/', 'uniqueLocal'],
    ['https://[fe80::1]/', 'linkLocal'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://[2002:7f00:1::]/', '6to4'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', 'teredo'],
    ['https://[64:ff9b::7f00:1]/', 'rfc6052'],
    ['https://[::7f00:1]/', 'not a global unicast'],
  ])('live: %s is refused (%s)', (url, why) => {
    const result = checkWebhookUrl(url, 'live');
    expect(result).toMatchObject({ ok: false, code: 'refused_address' });
    expect(result.ok || result.message).toContain(why);
  });

  it.each([
    ['http://example.com/hook', 'https_required'],
    ['https://user:pass@example.com/hook', 'credentials_in_url'],
    ['https://user@example.com/hook', 'credentials_in_url'],
    ['https://localhost/hook', 'refused_address'],
    ['https://LOCALHOST./hook', 'refused_address'],
    ['https://api.localhost/hook', 'refused_address'],
    ['ftp://example.com/hook', 'unsupported_scheme'],
    ['file:///etc/passwd', 'unsupported_scheme'],
    ['javascript:alert(1)', 'unsupported_scheme'],
    ['example.com/hook', 'invalid_url'],
    ['https://1.2.3.4.5/', 'invalid_url'],
    ['', 'invalid_url'],
  ])('live: %s is refused with %s', (url, code) => {
    expect(checkWebhookUrl(url, 'live')).toMatchObject({ ok: false, code });
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'refused_address'],
    ['http://10.0.0.1/', 'refused_address'],
    ['http://192.168.1.1/', 'refused_address'],
    ['http://100.64.0.1/', 'refused_address'],
    ['http://0.0.0.0:3000/', 'refused_address'],
    ['http://[fe80::1]/', 'refused_address'],
    ['http://[fd00::1]/', 'refused_address'],
    ['http://user:pass@localhost:3000/', 'credentials_in_url'],
    ['ftp://localhost/', 'unsupported_scheme'],
  ])('test mode still refuses %s (%s)', (url, code) => {
    expect(checkWebhookUrl(url, 'test')).toMatchObject({ ok: false, code });
  });
});

describe('checkWebhookUrl: accepted targets', () => {
  it.each([`https://${PUBLIC_V4}/hook`, `https://[${PUBLIC_V6}]/hook`, 'https://example.com/hooks?x=1', 'https://example.com:8443/'])(
    'live: %s',
    (url) => {
      const result = checkWebhookUrl(url, 'live');
      expect(result.ok).toBe(true);
      expect(result.ok && result.url.href).toBe(new URL(url).href);
    },
  );

  it.each([
    'http://localhost:3000/hook',
    'http://127.0.0.1:8080/',
    'http://2130706433:8080/',
    'http://[::1]:8080/',
    'http://example.com/',
    'https://example.com/',
  ])('test mode: %s (http and loopback allowed for local development)', (url) => {
    expect(checkWebhookUrl(url, 'test').ok).toBe(true);
  });
});

describe('addressRefusal', () => {
  it('judges IPv4-mapped IPv6 as the IPv4 address it carries', () => {
    expect(addressRefusal(`::ffff:${PUBLIC_V4}`, 'live')).toBeNull();
    expect(addressRefusal('::ffff:10.0.0.1', 'live')).toMatch(/private/);
  });

  it('refuses strings that are not strict IP addresses (never parses 2130706433 itself)', () => {
    expect(addressRefusal('2130706433', 'live')).toMatch(/not an IP address/);
    expect(addressRefusal('example.com', 'test')).toMatch(/not an IP address/);
  });
});

describe('resolveSafeAddress', () => {
  it('returns every checked address of a public name', async () => {
    const lookup = scriptedLookup([PUBLIC_V4, PUBLIC_V6]);
    await expect(resolveSafeAddress('example.com', 'live', lookup)).resolves.toEqual({
      ok: true,
      addresses: [
        { address: PUBLIC_V4, family: 4 },
        { address: PUBLIC_V6, family: 6 },
      ],
    });
    expect(lookup.calls).toEqual(['example.com']);
  });

  it.each([[['10.1.2.3']], [['169.254.169.254']], [['127.0.0.1']], [['::1']], [[PUBLIC_V4, '192.168.0.10']], [['fd12::1', PUBLIC_V6]]])(
    'live: a name resolving to %j is refused (every address must be public)',
    async (answer) => {
      const result = await resolveSafeAddress('internal.example.com', 'live', scriptedLookup(answer));
      expect(result).toMatchObject({ ok: false, code: 'refused_address' });
      expect(result.ok || result.message).toMatch(/^internal\.example\.com resolves to .*live-mode endpoints must be public/);
    },
  );

  it('test mode: loopback names are fine, private ones are not', async () => {
    await expect(resolveSafeAddress('localhost', 'test', scriptedLookup(['127.0.0.1', '::1']))).resolves.toMatchObject({ ok: true });
    await expect(resolveSafeAddress('dev.internal', 'test', scriptedLookup(['10.0.0.8']))).resolves.toMatchObject({
      ok: false,
      code: 'refused_address',
    });
  });

  it('test mode with allowLoopback: false refuses loopback too (hosted deployments)', async () => {
    const noLoopback = { allowLoopback: false };
    await expect(resolveSafeAddress('localhost', 'test', scriptedLookup(['127.0.0.1']), noLoopback)).resolves.toMatchObject({
      ok: false,
      code: 'refused_address',
    });
    for (const url of [
      'http://localhost:3000/hook',
      'http://127.0.0.1:8080/',
      'http://2130706433:8080/',
      'http://[::1]:8080/',
      'http://api.localhost/',
    ]) {
      expect(checkWebhookUrl(url, 'test', noLoopback), url).toMatchObject({ ok: false, code: 'refused_address' });
    }
    expect(checkWebhookUrl('http://example.com/', 'test', noLoopback).ok).toBe(true);
    expect(addressRefusal('127.0.0.1', 'test', noLoopback)).toMatch(/loopback/);
    const result = await deliverWebhookRequest({
      url: 'http://127.0.0.1:9/hook',
      mode: 'test',
      body: '{}',
      headers: {},
      allowLoopback: false,
    });
    expect(result).toMatchObject({ ok: false, code: 'refused_address' });
  });

  it('checks IP literals without DNS', async () => {
    const lookup = scriptedLookup();
    await expect(resolveSafeAddress(PUBLIC_V4, 'live', lookup)).resolves.toMatchObject({ ok: true });
    await expect(resolveSafeAddress('[::1]', 'live', lookup)).resolves.toMatchObject({ ok: false, code: 'refused_address' });
    expect(lookup.calls).toEqual([]);
  });

  it('reports DNS failures and empty answers as dns_error', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    await expect(resolveSafeAddress('nowhere.example', 'live', scriptedLookup(notFound))).resolves.toMatchObject({
      ok: false,
      code: 'dns_error',
      message: 'Could not resolve nowhere.example (ENOTFOUND).',
    });
    await expect(resolveSafeAddress('empty.example', 'live', scriptedLookup([]))).resolves.toMatchObject({ ok: false, code: 'dns_error' });
  });
});

describe('pinnedLookup', () => {
  const lookup = pinnedLookup('example.com', [
    { address: PUBLIC_V4, family: 4 },
    { address: PUBLIC_V6, family: 6 },
  ]);
  const ask = (name: string, options: { all?: boolean; family?: number }) =>
    new Promise<unknown[]>((resolve) => lookup(name, options, (...args) => resolve(args)));

  it('answers with the checked addresses only, in both shapes net.connect asks for', async () => {
    expect(await ask('example.com', {})).toEqual([null, PUBLIC_V4, 4]);
    expect(await ask('example.com', { family: 6 })).toEqual([null, PUBLIC_V6, 6]);
    expect(await ask('example.com', { all: true })).toEqual([
      null,
      [
        { address: PUBLIC_V4, family: 4 },
        { address: PUBLIC_V6, family: 6 },
      ],
    ]);
  });

  it('refuses any other name', async () => {
    const [error] = await ask('evil.example', {});
    expect(error).toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('deliverWebhookRequest', () => {
  const servers: (http.Server | https.Server)[] = [];
  afterEach(async () => {
    await Promise.all(
      servers.splice(0).map(
        (server) =>
          new Promise<void>((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      ),
    );
  });

  interface Received {
    host?: string;
    method?: string;
    url?: string;
    headers: http.IncomingHttpHeaders;
    body: string;
  }

  /** An HTTP server on 127.0.0.1; `handle` answers, `received` records each request. */
  async function receiver(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
    const received: Received[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ host: req.headers.host, method: req.method, url: req.url, headers: req.headers, body });
        handle(req, res);
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, received };
  }

  const signed = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1700000000', 'webhook-signature': 'v1,abc' };
  const body = JSON.stringify({ type: 'charge.confirmed' });

  it('delivers to the pinned address: one lookup, Host stays the name (DNS rebinding has no second chance)', async () => {
    const { port, received } = await receiver((_req, res) => res.end('thanks'));
    // A rebinding resolver: the checked answer first, then somewhere else on any later lookup.
    const lookup = scriptedLookup(['127.0.0.1'], ['10.0.0.1']);
    const result = await deliverWebhookRequest({
      url: `http://receiver.test:${port}/hooks?a=1`,
      mode: 'test',
      body,
      headers: signed,
      lookup,
    });

    expect(result).toMatchObject({ ok: true, status: 200, bodySnippet: 'thanks', address: '127.0.0.1' });
    expect(lookup.calls).toEqual(['receiver.test']);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ host: `receiver.test:${port}`, method: 'POST', url: '/hooks?a=1', body });
    expect(received[0]!.headers).toMatchObject({
      'webhook-id': 'msg_1',
      'webhook-signature': 'v1,abc',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
  });

  it('https: connects to the pinned address while SNI, certificate check and Host use the name', async () => {
    const server = https.createServer({ key: RECEIVER_TEST_KEY, cert: RECEIVER_TEST_CERT }, (req, res) => {
      res.end(JSON.stringify({ host: req.headers.host, sni: (req.socket as TLSSocket).servername }));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const lookup = scriptedLookup(['127.0.0.1'], ['10.0.0.1']);
    const tls = { mode: 'test' as const, body, headers: signed, lookup, ca: RECEIVER_TEST_CERT };

    const result = await deliverWebhookRequest({ ...tls, url: `https://receiver.test:${port}/` });
    expect(result).toMatchObject({ ok: true, status: 200, address: '127.0.0.1' });
    expect(JSON.parse(result.bodySnippet!)).toEqual({ host: `receiver.test:${port}`, sni: 'receiver.test' });
    expect(lookup.calls).toEqual(['receiver.test']);

    // The certificate is checked against the name, not the pinned address.
    const mismatch = await deliverWebhookRequest({ ...tls, url: `https://other.test:${port}/`, lookup: scriptedLookup(['127.0.0.1']) });
    expect(mismatch).toMatchObject({ ok: false, code: 'network_error' });
    expect(mismatch.ok || mismatch.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
  });

  it('never lets the caller set Host', async () => {
    const { port, received } = await receiver((_req, res) => res.end());
    await deliverWebhookRequest({
      url: `http://127.0.0.1:${port}/`,
      mode: 'test',
      body,
      headers: { ...signed, Host: 'metadata.internal' },
    });
    expect(received[0]!.host).toBe(`127.0.0.1:${port}`);
  });

  it('live mode: refuses before connecting when any resolved address is private', async () => {
    const lookup = scriptedLookup([PUBLIC_V4, '127.0.0.1']);
    const result = await deliverWebhookRequest({ url: 'https://rebind.example/hook', mode: 'live', body, headers: signed, lookup });
    expect(result).toMatchObject({ ok: false, code: 'refused_address' });
    expect(lookup.calls).toHaveLength(1);
  });

  it('live mode: refuses loopback even where test mode delivers', async () => {
    const { port, received } = await receiver((_req, res) => res.end());
    const lookup = scriptedLookup(['127.0.0.1']);
    const live = await deliverWebhookRequest({ url: `https://receiver.test:${port}/`, mode: 'live', body, headers: signed, lookup });
    expect(live).toMatchObject({ ok: false, code: 'refused_address' });
    const plainHttp = await deliverWebhookRequest({ url: `http://127.0.0.1:${port}/`, mode: 'live', body, headers: signed });
    expect(plainHttp).toMatchObject({ ok: false, code: 'https_required' });
    expect(received).toHaveLength(0);
  });

  it('a 302 is not followed and counts as not delivered', async () => {
    const { port, received } = await receiver((_req, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end('moved');
    });
    const result = await deliverWebhookRequest({ url: `http://127.0.0.1:${port}/hook`, mode: 'test', body, headers: signed });
    expect(result).toMatchObject({ ok: false, code: 'redirect_not_followed', status: 302, bodySnippet: 'moved' });
    expect(result.ok || result.message).toContain('169.254.169.254');
    expect(received).toHaveLength(1);
  });

  it('a 500 is an http_error with the answer kept', async () => {
    const { port } = await receiver((_req, res) => res.writeHead(500).end('boom'));
    const result = await deliverWebhookRequest({ url: `http://127.0.0.1:${port}/`, mode: 'test', body, headers: signed });
    expect(result).toMatchObject({ ok: false, code: 'http_error', status: 500, bodySnippet: 'boom' });
  });

  it('times out against a server that never answers', async () => {
    const { port } = await receiver(() => {
      // accept the request, never answer
    });
    const result = await deliverWebhookRequest({ url: `http://127.0.0.1:${port}/`, mode: 'test', body, headers: signed, timeoutMs: 300 });
    expect(result).toMatchObject({ ok: false, code: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(3000);
  });

  it('times out when DNS never answers', async () => {
    const lookup: HostLookup = () => new Promise(() => {});
    const result = await deliverWebhookRequest({
      url: 'http://slow-dns.test/',
      mode: 'test',
      body,
      headers: signed,
      timeoutMs: 200,
      lookup,
    });
    expect(result).toMatchObject({ ok: false, code: 'timeout' });
  });

  it('reads only the first 4 KiB of an endless answer, then hangs up', async () => {
    let serverSawClose = false;
    const { port } = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('x'.repeat(1024)), 1);
      res.on('close', () => {
        clearInterval(timer);
        serverSawClose = true;
      });
    });
    const result = await deliverWebhookRequest({ url: `http://127.0.0.1:${port}/`, mode: 'test', body, headers: signed, timeoutMs: 5000 });
    expect(result).toMatchObject({ ok: true, status: 200 });
    expect(result.bodySnippet).toBe('x'.repeat(4096));
    expect(result.durationMs).toBeLessThan(5000);
    await expect.poll(() => serverSawClose).toBe(true);
  });

  it('reports a refused connection as network_error', async () => {
    const { port } = await receiver((_req, res) => res.end());
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const result = await deliverWebhookRequest({ url: `http://127.0.0.1:${port}/`, mode: 'test', body, headers: signed });
    expect(result).toMatchObject({ ok: false, code: 'network_error' });
    expect(result.ok || result.message).toContain('ECONNREFUSED');
  });

  it('never throws: a header value with a line break is a failed delivery, nothing sent', async () => {
    const { port, received } = await receiver((_req, res) => res.end());
    const result = await deliverWebhookRequest({
      url: `http://127.0.0.1:${port}/`,
      mode: 'test',
      body,
      headers: { 'x-evil': 'a\r\nHost: x' },
    });
    expect(result).toMatchObject({ ok: false, code: 'network_error' });
    expect(received).toHaveLength(0);
  });

  it('refuses bad URLs without any network activity', async () => {
    const lookup = scriptedLookup([PUBLIC_V4]);
    for (const url of ['https://169.254.169.254/', 'https://2130706433/', 'https://u:p@example.com/', 'http://example.com/']) {
      const result = await deliverWebhookRequest({ url, mode: 'live', body, headers: signed, lookup });
      expect(result.ok).toBe(false);
    }
    expect(lookup.calls).toEqual([]);
  });
});
