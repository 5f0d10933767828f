/**
 * constructEvent: verifies a delivery the Standard Webhooks way (HMAC-SHA256 of `id.timestamp.body`
 * keyed with the base64 part of `whsec_…`, timestamps within 5 minutes, constant-time comparison, any
 * of several `v1,` signatures) and returns the event typed by its `type`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ChargeportError } from './errors.ts';
import type { webhooks as WebhookOperations } from './generated/openapi.ts';

type PayloadOf<T> = T extends { post: { requestBody?: { content: { 'application/json': infer P } } } } ? P : never;
/** One member per event type: narrow on `event.type`. */
export type WebhookEvent = { [K in keyof WebhookOperations]: PayloadOf<WebhookOperations[K]> }[keyof WebhookOperations];

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const TOLERANCE_SECONDS = 5 * 60;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

const refuse = (code: 'invalid_webhook_signature' | 'invalid_webhook_payload' | 'invalid_webhook_secret', message: string) =>
  ChargeportError.generate({ status: 0, code, message });

/**
 * The Standard Webhooks headers for `body`, signed with `secret` (`whsec_…`): what Chargeport sends,
 * for your own tests of a webhook handler, and what `chargeport listen` forwards with.
 */
export function signWebhook(
  body: string,
  secret: string,
  options: { id: string; timestamp?: Date },
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  if (!/^whsec_[A-Za-z0-9+/]+=*$/.test(secret))
    throw refuse('invalid_webhook_secret', 'The secret must be the endpoint secret, whsec_<base64>.');
  const timestamp = String(Math.floor((options.timestamp ?? new Date()).getTime() / 1000));
  const signature = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
    .update(`${options.id}.${timestamp}.${body}`)
    .digest('base64');
  return { 'webhook-id': options.id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` };
}

export function constructEvent(
  body: string | Buffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: { now?: Date } = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw refuse('invalid_webhook_signature', 'Missing webhook-id, webhook-timestamp or webhook-signature header.');
  const seconds = Number(timestamp);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (!Number.isInteger(seconds) || Math.abs(now - seconds) > TOLERANCE_SECONDS) {
    throw refuse('invalid_webhook_signature', 'webhook-timestamp is more than 5 minutes from this clock (a replay, or a wrong clock).');
  }
  const raw = typeof body === 'string' ? body : body.toString('utf8');
  const given = signatures
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => Buffer.from(part.slice(3), 'base64'));
  const matched = (typeof secret === 'string' ? [secret] : secret).some((one) => {
    if (!/^whsec_[A-Za-z0-9+/]+=*$/.test(one))
      throw refuse('invalid_webhook_secret', 'The secret must be the endpoint secret, whsec_<base64>.');
    const expected = createHmac('sha256', Buffer.from(one.slice(6), 'base64'))
      .update(`${id}.${timestamp}.${raw}`)
      .digest();
    return given.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected));
  });
  if (!matched)
    throw refuse('invalid_webhook_signature', 'No webhook-signature matches this secret (verify the raw body, before JSON parsing).');
  try {
    return JSON.parse(raw) as WebhookEvent;
  } catch (cause) {
    throw ChargeportError.generate({ status: 0, code: 'invalid_webhook_payload', message: 'The signed body is not JSON.', cause });
  }
}
