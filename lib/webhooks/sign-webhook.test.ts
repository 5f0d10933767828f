import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from './new-webhook-secret';
import { signWebhook, webhookSecretKey } from './sign-webhook';

const body = JSON.stringify({ type: 'charge.confirmed', data: { id: 'ch_123', amount: '4.99' } });

function verify(secret: string, headers: Record<string, string>, payload = body): unknown {
  return new Webhook(secret).verify(payload, headers);
}

describe('newWebhookSecret', () => {
  it('is whsec_ + base64 of 32 random bytes, different every time', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookSecretKey(a)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });

  it.each([
    ['no prefix', Buffer.alloc(32, 1).toString('base64')],
    ['too short', `whsec_${Buffer.alloc(16, 1).toString('base64')}`],
    ['too long', `whsec_${Buffer.alloc(65, 1).toString('base64')}`],
    ['not base64', 'whsec_!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!'],
    ['empty', 'whsec_'],
  ])('a malformed secret (%s) never signs', (_case, secret) => {
    expect(() => signWebhook({ secret, id: 'msg_1', timestamp: new Date(), body })).toThrow(/webhook secret/);
  });
});

describe('signWebhook (checked against the standardwebhooks reference implementation)', () => {
  const secret = newWebhookSecret();

  it('produces headers that Webhook.verify accepts, and returns the parsed payload', () => {
    const headers = signWebhook({ secret, id: 'msg_abc', timestamp: new Date(), body });
    expect(headers['webhook-id']).toBe('msg_abc');
    expect(headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(secret, { ...headers })).toEqual(JSON.parse(body));
  });

  it('signs byte-for-byte like Webhook.sign (unicode body, sub-second timestamp floored)', () => {
    const timestamp = new Date(1_700_000_000_999);
    const unicode = JSON.stringify({ note: 'café — ✓ 🚀' });
    const headers = signWebhook({ secret, id: 'msg_u', timestamp, body: unicode });
    expect(headers['webhook-timestamp']).toBe('1700000000');
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('msg_u', timestamp, unicode));
  });

  it('signs with every secret during a rotation; each secret alone verifies', () => {
    const next = newWebhookSecret();
    const headers = signWebhook({ secret: [next, secret], id: 'msg_rot', timestamp: new Date(), body });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verify(secret, { ...headers })).toEqual(JSON.parse(body));
    expect(verify(next, { ...headers })).toEqual(JSON.parse(body));
    expect(() => signWebhook({ secret: [], id: 'msg_rot', timestamp: new Date(), body })).toThrow(/at least one secret/);
  });

  it('is rejected for a tampered body', () => {
    const headers = signWebhook({ secret, id: 'msg_t', timestamp: new Date(), body });
    expect(() => verify(secret, { ...headers }, body.replace('4.99', '0.01'))).toThrow(WebhookVerificationError);
  });

  it('is rejected under a different secret', () => {
    const headers = signWebhook({ secret, id: 'msg_w', timestamp: new Date(), body });
    expect(() => verify(newWebhookSecret(), { ...headers })).toThrow(/No matching signature/);
  });

  it('is rejected when the id or timestamp header is swapped (both are signed)', () => {
    const now = new Date();
    const headers = signWebhook({ secret, id: 'msg_a', timestamp: now, body });
    expect(() => verify(secret, { ...headers, 'webhook-id': 'msg_b' })).toThrow(/No matching signature/);
    expect(() => verify(secret, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) })).toThrow(
      /No matching signature/,
    );
  });

  it('is rejected outside the 5-minute tolerance (replay), accepted just inside it', () => {
    const old = signWebhook({ secret, id: 'msg_o', timestamp: new Date(Date.now() - 6 * 60_000), body });
    expect(() => verify(secret, { ...old })).toThrow(/too old/);
    const future = signWebhook({ secret, id: 'msg_f', timestamp: new Date(Date.now() + 6 * 60_000), body });
    expect(() => verify(secret, { ...future })).toThrow(/too new/);
    const recent = signWebhook({ secret, id: 'msg_r', timestamp: new Date(Date.now() - 4 * 60_000), body });
    expect(verify(secret, { ...recent })).toEqual(JSON.parse(body));
  });
});
