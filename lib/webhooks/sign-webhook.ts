/**
 * Webhook signing per Standard Webhooks (https://www.standardwebhooks.com): each delivery carries
 * `webhook-id`, `webhook-timestamp` (unix seconds) and `webhook-signature`, a space-separated list
 * of `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`. The HMAC key is the base64 part of the
 * endpoint secret `whsec_<base64>`. Any Standard Webhooks library (and the SDK's `verifyWebhook`)
 * verifies these headers.
 *
 * Several secrets sign at once while a secret is rotated: the receiver accepts a delivery when any
 * one signature matches a secret it knows, so old and new secrets both work during the overlap.
 */
import { createHmac } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export interface SignWebhookInput {
  /** One secret, or every secret valid during a rotation (newest first); one signature each. */
  secret: string | readonly string[];
  /** Stable per message: the same id on every retry, so receivers can deduplicate. */
  id: string;
  /** When this attempt is sent; receivers refuse timestamps more than ~5 minutes away from their clock. */
  timestamp: Date;
  /** The exact bytes sent as the request body (already serialized JSON). */
  body: string;
}

/** The HMAC key of `whsec_<base64>`; throws on anything else, so a corrupted secret never signs. */
export function webhookSecretKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error(`A webhook secret starts with ${WEBHOOK_SECRET_PREFIX}`);
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  const key = Buffer.from(encoded, 'base64');
  if (!BASE64.test(encoded) || key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    throw new Error(`A webhook secret is ${WEBHOOK_SECRET_PREFIX} followed by base64 of ${MIN_SECRET_BYTES}–${MAX_SECRET_BYTES} bytes`);
  }
  return key;
}

/** The Standard Webhooks headers for one delivery attempt. */
export function signWebhook({ secret, id, timestamp, body }: SignWebhookInput): WebhookHeaders {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (secrets.length === 0) throw new Error('signWebhook needs at least one secret');
  const seconds = Math.floor(timestamp.getTime() / 1000);
  if (!Number.isSafeInteger(seconds) || seconds < 0) throw new Error('signWebhook needs a valid timestamp');
  const signed = `${id}.${seconds}.${body}`;
  const signatures = secrets.map((s) => `v1,${createHmac('sha256', webhookSecretKey(s)).update(signed, 'utf8').digest('base64')}`);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': signatures.join(' '),
  };
}
