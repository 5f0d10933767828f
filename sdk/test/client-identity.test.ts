/**
 * The web SDK in a browser: it names itself with `Chargeport-Client: web/<version>` (a page cannot set
 * User-Agent), and every header it sends is one the API's CORS preflight allows — otherwise the
 * browser would refuse the request before it left the page.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { corsPreflight } from '@/lib/api/cors';
import { CURRENT_API_VERSION } from '@/lib/api/resolve-api-version';
import { Chargeport, VERSION, type FetchLike } from '../src/index';

const globals = globalThis as { window?: unknown; document?: unknown };
afterEach(() => {
  delete globals.window;
  delete globals.document;
});

/** Headers a browser sends without asking the server (CORS-safelisted), here only `accept`. */
const SAFELISTED = new Set(['accept']);

function recording(): { fetch: FetchLike; sent: Headers[] } {
  const sent: Headers[] = [];
  const fetch: FetchLike = async (_url, init) => {
    sent.push(new Headers(init.headers));
    const data =
      new URL(_url).pathname === '/api/createCharge'
        ? { chargeId: 'ch_1', paymentUrl: 'https://pay.example/checkout/ch_1' }
        : { id: 'ch_1' };
    return Response.json({ data, error: null });
  };
  return { fetch, sent };
}

describe('@chargeport/web identity headers', () => {
  it('in a browser: Chargeport-Client and Chargeport-Version on every request, no User-Agent, and only headers the preflight allows', async () => {
    globals.window = {};
    globals.document = {};
    const { fetch, sent } = recording();
    const chargeport = new Chargeport({ apiKey: 'cp_pub_test_x', baseUrl: 'https://pay.example.com', fetch });
    await chargeport.createCharge({ chain: 'POLYGON', symbol: 'USDC', tokenAddress: '0x3c', amount: '1' }, { idempotencyKey: 'k' });
    await chargeport.getCharge('ch_1');

    const allowed = corsPreflight(
      new Request('https://pay.example.com/api/createCharge', { method: 'OPTIONS', headers: { origin: 'https://shop.example' } }),
    )
      .headers.get('access-control-allow-headers')!
      .split(/,\s*/);
    expect(sent).toHaveLength(2);
    for (const headers of sent) {
      expect(headers.get('chargeport-client')).toBe(`web/${VERSION}`);
      expect(headers.get('chargeport-version')).toBe(CURRENT_API_VERSION);
      expect(headers.has('user-agent')).toBe(false);
      for (const name of headers.keys()) if (!SAFELISTED.has(name)) expect(allowed, name).toContain(name);
    }
  });

  it('on a server: also a User-Agent naming the SDK and the runtime', async () => {
    const { fetch, sent } = recording();
    await new Chargeport({ apiKey: 'cp_test_x', baseUrl: 'https://pay.example.com', fetch }).getCharge('ch_1');
    expect(sent[0]!.get('user-agent')).toBe(`chargeport-web/${VERSION} node/${process.versions.node}`);
    expect(sent[0]!.get('chargeport-client')).toBe(`web/${VERSION}`);
  });
});
