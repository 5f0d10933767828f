/**
 * Every route that reads a body from someone not yet authenticated caps it before reading it: a
 * declared Content-Length over the cap is refused unread, and a body streamed without one is cut off
 * at the first chunk past the cap (the stream is not drained). Server actions: Next.js's own cap,
 * `serverActions.bodySizeLimit` in next.config.mjs (e2e/security-headers.spec.ts).
 */
import { describe, expect, it } from 'vitest';
import { AUTH_MAX_BODY_BYTES } from '@/lib/auth/auth';
import { PROVIDER_WEBHOOK_MAX_BYTES } from '@/lib/onramp/orders/apply-provider-webhook';
import { expectDeclaredResponse } from '@/test/fixtures';
import { TEST_SECRETS } from '@/test/test-secrets';
import { POST as authPost } from './auth/[...nextauth]/route';
import { POST as webhookPost } from './onramp/webhooks/[providerId]/route';
import { POST as sandboxSessionsPost } from '../sandbox-provider/api/sessions/route';

type Post = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
const KIB = 1024;

/** A body of `size` bytes, declared in Content-Length. */
function declared(url: string, size: number, headers: Record<string, string> = {}): Request {
  return new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: 'x'.repeat(size) });
}

/** A body that never ends, streamed without Content-Length; `pulled()` says how many bytes were read. */
function endless(url: string, headers: Record<string, string> = {}): { request: Request; pulled: () => number } {
  let pulled = 0;
  const chunk = new Uint8Array(16 * KIB).fill(120);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const request = new Request(url, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
  return { request, pulled: () => pulled };
}

async function call(handler: Post, request: Request, params: Record<string, string> = {}) {
  const response = await handler(request, { params: Promise.resolve(params) });
  const json = (await response.json()) as Record<string, any>;
  await expectDeclaredResponse(handler, {
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: json,
    headers: response.headers,
  });
  return { status: response.status, json };
}

const ENVELOPE_413 = { data: null, error: { code: 'payload_too_large', message: expect.stringContaining('larger than') } };

describe('provider webhooks: POST /api/onramp/webhooks/{provider}, 256 KiB', () => {
  const url = 'http://localhost:3999/api/onramp/webhooks/sandbox';

  it('refuses a declared body over 256 KiB with 413 in the envelope', async () => {
    const res = await call(webhookPost as Post, declared(url, PROVIDER_WEBHOOK_MAX_BYTES + 1), { providerId: 'sandbox' });
    expect(PROVIDER_WEBHOOK_MAX_BYTES).toBe(256 * KIB);
    expect(res).toEqual({ status: 413, json: ENVELOPE_413 });
  });

  it('stops reading an endless body without Content-Length just past the cap', async () => {
    const { request, pulled } = endless(url);
    const res = await call(webhookPost as Post, request, { providerId: 'sandbox' });
    expect(res).toEqual({ status: 413, json: ENVELOPE_413 });
    expect(pulled()).toBeLessThanOrEqual(PROVIDER_WEBHOOK_MAX_BYTES + 3 * 16 * KIB);
  });

  it('reads a body under the cap and judges it on its signature', async () => {
    const res = await call(webhookPost as Post, declared(url, 200 * KIB), { providerId: 'sandbox' });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ received: false, outcome: 'rejected' });
  });
});

describe("next-auth's POST /api/auth/*, 64 KiB", () => {
  const url = 'http://localhost:3999/api/auth/signout';

  it('refuses a declared body over the cap with 413 in the envelope', async () => {
    const res = await call(
      authPost as unknown as Post,
      declared(url, AUTH_MAX_BODY_BYTES + 1, { 'content-type': 'application/x-www-form-urlencoded' }),
    );
    expect(res).toEqual({ status: 413, json: ENVELOPE_413 });
  });

  it('stops reading an endless body just past the cap', async () => {
    const { request, pulled } = endless(url, { 'content-type': 'application/x-www-form-urlencoded' });
    const res = await call(authPost as unknown as Post, request);
    expect(res).toEqual({ status: 413, json: ENVELOPE_413 });
    expect(pulled()).toBeLessThanOrEqual(AUTH_MAX_BODY_BYTES + 3 * 16 * KIB);
  });
});

describe("the sandbox provider's API: POST /sandbox-provider/api/sessions, 16 KiB, in the provider's own envelope", () => {
  const url = 'http://localhost:3999/sandbox-provider/api/sessions';
  const partner = { authorization: `Bearer ${TEST_SECRETS.SANDBOX_PROVIDER_SECRET}` };

  it('refuses a larger body with 413 payload_too_large, reading no further', async () => {
    const { request, pulled } = endless(url, { ...partner, 'content-type': 'application/json' });
    const res = await call(sandboxSessionsPost as Post, request);
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ error: { code: 'payload_too_large', message: expect.stringContaining('16384 bytes') } });
    expect(pulled()).toBeLessThanOrEqual(16 * KIB + 3 * 16 * KIB);
  });

  it('reads nothing from a caller without the partner key', async () => {
    const { request, pulled } = endless(url, { 'content-type': 'application/json' });
    const res = await call(sandboxSessionsPost as Post, request);
    expect(res.status).toBe(401);
    expect(pulled()).toBeLessThanOrEqual(3 * 16 * KIB); // what the stream buffers ahead, not what the route read
  });
});
