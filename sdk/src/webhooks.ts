/**
 * Verifying Chargeport webhooks on the merchant's server. Chargeport signs every delivery the
 * Standard Webhooks way (https://www.standardwebhooks.com): headers `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature`, a space-separated list of
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">` keyed with the endpoint secret
 * `whsec_<base64>`. Any Standard Webhooks library verifies them too.
 *
 * Web Crypto only (`globalThis.crypto.subtle`), so it runs on Node 20.19+, Deno, Bun, edge runtimes
 * and Cloudflare Workers. The event it returns is typed by its `type`, as `constructEvent` in
 * @chargeport/node.
 */
import { ChargeportError } from './errors.ts';
import type { WebhookEvent } from './types.ts';

/**
 * Codes of the errors `verifyWebhook` throws (status 0):
 * - `invalid_webhook_signature`: a header is missing, the timestamp is outside the tolerance, or no
 *   signature matches — answer 400 and do not act on the event;
 * - `invalid_webhook_payload`: the signature is valid but the body is not JSON;
 * - `invalid_webhook_secret`: the secret given to `verifyWebhook` is not `whsec_<base64>` (a setup error).
 */
export type WebhookErrorCode = 'invalid_webhook_signature' | 'invalid_webhook_payload' | 'invalid_webhook_secret';

/** Request headers: a `Headers` object (fetch, edge) or a plain object such as Node's `req.headers`. */
export type WebhookHeadersInit = Headers | Record<string, string | readonly string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The endpoint's signing secret (`whsec_…`); several while you rotate it, any one may match. */
  secret: string | readonly string[];
  /**
   * The raw request body exactly as received, before any JSON parsing (re-serialized JSON does not
   * match the signature): `await request.text()`, or `express.raw({ type: 'application/json' })`.
   */
  body: string;
  headers: WebhookHeadersInit;
  /** Largest accepted difference between `webhook-timestamp` and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The current time; for tests. */
  now?: Date;
}

const SECRET_PREFIX = 'whsec_';
/** Bytes backed by a plain ArrayBuffer, as Web Crypto's BufferSource requires. */
type Bytes = Uint8Array<ArrayBuffer>;
const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/**
 * Checks a webhook's signature and timestamp and returns its parsed JSON payload: a
 * {@link WebhookEvent}, a union discriminated by `type` (`if (event.type === 'charge.succeeded')`
 * narrows `event.data`). Throws a `SignatureVerificationError` (a {@link ChargeportError}) with a
 * {@link WebhookErrorCode} when the request must not be trusted.
 *
 * ```ts
 * const event = await verifyWebhook({ secret: process.env.CHARGEPORT_WEBHOOK_SECRET!, body: await request.text(), headers: request.headers });
 * ```
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  const secrets = typeof options.secret === 'string' ? [options.secret] : options.secret;
  const keys = secrets.map(secretKey);
  if (keys.length === 0) throw webhookError('invalid_webhook_secret', 'verifyWebhook needs the endpoint secret (whsec_…).');

  const id = header(options.headers, 'webhook-id');
  const timestamp = header(options.headers, 'webhook-timestamp');
  const signatureHeader = header(options.headers, 'webhook-signature');
  if (!id || !timestamp || !signatureHeader) {
    throw webhookError('invalid_webhook_signature', 'Missing webhook-id, webhook-timestamp or webhook-signature header.');
  }
  if (!/^\d{1,15}$/.test(timestamp)) throw webhookError('invalid_webhook_signature', 'The webhook-timestamp header is not unix seconds.');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw webhookError(
      'invalid_webhook_signature',
      `The webhook timestamp is more than ${tolerance} seconds away from now (replayed, or a wrong clock).`,
    );
  }

  const candidates: Bytes[] = [];
  for (const entry of signatureHeader.split(' ')) {
    const comma = entry.indexOf(',');
    if (comma === -1 || entry.slice(0, comma) !== 'v1') continue; // other schemes (v1a, …) are not ours
    const decoded = decodeBase64(entry.slice(comma + 1));
    if (decoded) candidates.push(decoded);
  }

  const signed = new TextEncoder().encode(`${id}.${timestamp}.${options.body}`);
  let isValid = false;
  for (const key of keys) {
    const expected = await hmacSha256(key, signed);
    // Check every candidate, no early exit: the time taken does not tell which one matched.
    for (const candidate of candidates) if (constantTimeEqual(expected, candidate)) isValid = true;
  }
  if (!isValid) throw webhookError('invalid_webhook_signature', 'No webhook signature matches the secret.');

  try {
    return JSON.parse(options.body) as WebhookEvent;
  } catch (cause) {
    throw webhookError('invalid_webhook_payload', 'The webhook body is not JSON.', cause);
  }
}

function header(headers: WebhookHeadersInit, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.join(' ');
  }
  return undefined;
}

function secretKey(secret: string): Bytes {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = decodeBase64(encoded);
  if (!key || key.length === 0)
    throw webhookError('invalid_webhook_secret', 'The webhook secret is not whsec_ followed by base64; copy it again from the dashboard.');
  return key;
}

function decodeBase64(text: string): Bytes | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return undefined;
  }
}

async function hmacSha256(key: Bytes, data: Bytes): Promise<Bytes> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('verifyWebhook needs Web Crypto (globalThis.crypto.subtle): Node 18+, a browser or an edge runtime.');
  const cryptoKey = await subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', cryptoKey, data));
}

/** Equal lengths are compared byte by byte without early exit (a length is no secret). */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}

function webhookError(code: WebhookErrorCode, message: string, cause?: unknown): ChargeportError {
  return ChargeportError.generate({ status: 0, code, message, cause });
}
