import { Webhook } from 'standardwebhooks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { newWebhookSecret } from '@/lib/webhooks/new-webhook-secret';
import { signWebhook } from '@/lib/webhooks/sign-webhook';
import { ChargeportError, SignatureVerificationError } from '../src/errors';
import type { WebhookEvent } from '../src/types';
import { verifyWebhook, type VerifyWebhookOptions } from '../src/webhooks';

const secret = newWebhookSecret();
const event = { id: 'evt_1', type: 'charge.confirmed', data: { id: 'ch_1', amount: '4.99', note: 'café ✓' } };
const body = JSON.stringify(event);

/** Headers as the reference implementation (standardwebhooks' Webhook.sign) builds them. */
function referenceHeaders(options: { secret?: string; id?: string; at?: Date; payload?: string } = {}) {
  const id = options.id ?? 'msg_ref';
  const at = options.at ?? new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(options.secret ?? secret).sign(id, at, options.payload ?? body),
  };
}

async function rejection(options: VerifyWebhookOptions): Promise<ChargeportError> {
  const error = await verifyWebhook(options).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ChargeportError);
  expect(error).toBeInstanceOf(SignatureVerificationError);
  return error as ChargeportError;
}

describe('verifyWebhook accepts', () => {
  it('a real event, typed by its type as in @chargeport/node (narrowing on event.type, checked by tsc)', async () => {
    const succeeded = JSON.stringify({ id: 'wevt_1', object: 'event', type: 'charge.succeeded', data: { charge: { id: 'ch_9' } } });
    const verified = await verifyWebhook({ secret, body: succeeded, headers: referenceHeaders({ payload: succeeded }) });
    expectTypeOf(verified).toEqualTypeOf<WebhookEvent>();
    expect(verified.type).toBe('charge.succeeded');
    if (verified.type === 'charge.succeeded') {
      expectTypeOf(verified.data.charge.id).toBeString();
      expect(verified.data.charge.id).toBe('ch_9');
      // @ts-expect-error -- a charge event has no refund
      expect(verified.data.refund).toBeUndefined();
    }
  });

  it('signatures made by the standardwebhooks reference implementation, returning the parsed payload', async () => {
    await expect(verifyWebhook({ secret, body, headers: referenceHeaders() })).resolves.toEqual(event);
  });

  it('signatures made by Chargeport (lib/webhooks/signing), including a rotation with two secrets', async () => {
    const next = newWebhookSecret();
    const headers = signWebhook({ secret: [next, secret], id: 'msg_cp', timestamp: new Date(), body });
    await expect(verifyWebhook({ secret, body, headers: { ...headers } })).resolves.toEqual(event);
    await expect(verifyWebhook({ secret: next, body, headers: { ...headers } })).resolves.toEqual(event);
  });

  it('several secrets on the receiving side (the merchant rotating)', async () => {
    const headers = referenceHeaders();
    await expect(verifyWebhook({ secret: [newWebhookSecret(), secret], body, headers })).resolves.toEqual(event);
  });

  it('any one matching v1 signature among several, ignoring other schemes and junk', async () => {
    const good = referenceHeaders();
    const signature = `v1a,AAAA v1,${Buffer.alloc(32).toString('base64')} v1,not*base64 ${good['webhook-signature']} v2,zzz`;
    await expect(verifyWebhook({ secret, body, headers: { ...good, 'webhook-signature': signature } })).resolves.toEqual(event);
  });

  it('a Headers instance, and plain objects in any letter case (Node req.headers style)', async () => {
    const headers = referenceHeaders();
    await expect(verifyWebhook({ secret, body, headers: new Headers(headers) })).resolves.toEqual(event);
    const shouting = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    await expect(
      verifyWebhook({ secret, body, headers: { ...shouting, 'content-type': 'application/json', 'x-list': ['a', 'b'] } }),
    ).resolves.toEqual(event);
  });

  it('a secret without the whsec_ prefix (the base64 part alone)', async () => {
    await expect(verifyWebhook({ secret: secret.slice('whsec_'.length), body, headers: referenceHeaders() })).resolves.toEqual(event);
  });

  it('a timestamp inside a custom tolerance, and a given clock', async () => {
    const at = new Date('2030-01-01T00:00:00Z');
    const headers = referenceHeaders({ at });
    const now = new Date(at.getTime() + 9 * 60_000);
    await expect(verifyWebhook({ secret, body, headers, now, toleranceSeconds: 10 * 60 })).resolves.toEqual(event);
  });
});

describe('verifyWebhook rejects', () => {
  it('a tampered body', async () => {
    const error = await rejection({ secret, body: body.replace('4.99', '0.01'), headers: referenceHeaders() });
    expect(error).toMatchObject({ name: 'SignatureVerificationError', status: 0, code: 'invalid_webhook_signature' });
  });

  it('a tampered id or timestamp (both are signed)', async () => {
    const headers = referenceHeaders();
    expect(await rejection({ secret, body, headers: { ...headers, 'webhook-id': 'msg_other' } })).toMatchObject({
      code: 'invalid_webhook_signature',
    });
    const earlier = String(Number(headers['webhook-timestamp']) - 1);
    expect(await rejection({ secret, body, headers: { ...headers, 'webhook-timestamp': earlier } })).toMatchObject({
      code: 'invalid_webhook_signature',
    });
  });

  it('another secret', async () => {
    const error = await rejection({ secret: newWebhookSecret(), body, headers: referenceHeaders() });
    expect(error).toMatchObject({ code: 'invalid_webhook_signature', message: 'No webhook signature matches the secret.' });
  });

  it.each([
    ['too old', -6 * 60_000],
    ['too far ahead', 6 * 60_000],
  ])('a correctly signed but %s timestamp (replay protection, 5 minutes by default)', async (_case, offset) => {
    const error = await rejection({ secret, body, headers: referenceHeaders({ at: new Date(Date.now() + offset) }) });
    expect(error).toMatchObject({ code: 'invalid_webhook_signature' });
    expect(error.message).toMatch(/300 seconds/);
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])('a request without %s', async (name) => {
    const headers: Record<string, string> = referenceHeaders();
    delete headers[name];
    const error = await rejection({ secret, body, headers });
    expect(error).toMatchObject({ code: 'invalid_webhook_signature' });
    expect(error.message).toMatch(/Missing/);
  });

  it.each(['1.7e9', '-1', 'now', ''])('a timestamp that is not unix seconds (%j)', async (timestamp) => {
    const error = await rejection({ secret, body, headers: { ...referenceHeaders(), 'webhook-timestamp': timestamp } });
    expect(error).toMatchObject({ code: 'invalid_webhook_signature' });
  });

  it('a signature with the right value but another scheme name', async () => {
    const headers = referenceHeaders();
    const signature = headers['webhook-signature'].replace(/^v1,/, 'v2,');
    expect(await rejection({ secret, body, headers: { ...headers, 'webhook-signature': signature } })).toMatchObject({
      code: 'invalid_webhook_signature',
    });
  });

  it('a validly signed body that is not JSON: invalid_webhook_payload', async () => {
    const payload = 'not json';
    const error = await rejection({ secret, body: payload, headers: referenceHeaders({ payload }) });
    expect(error).toMatchObject({ code: 'invalid_webhook_payload' });
  });

  it.each([['whsec_***'], ['']])('a malformed secret %j: invalid_webhook_secret', async (bad) => {
    const error = await rejection({ secret: bad, body, headers: referenceHeaders() });
    expect(error).toMatchObject({ code: 'invalid_webhook_secret' });
    expect(await rejection({ secret: [], body, headers: referenceHeaders() })).toMatchObject({ code: 'invalid_webhook_secret' });
  });
});

describe('package entry point', () => {
  it('exports verifyWebhook from @chargeport/web', async () => {
    const entry = await import('../src/index.ts');
    expect(entry.verifyWebhook).toBe(verifyWebhook);
  });
});
