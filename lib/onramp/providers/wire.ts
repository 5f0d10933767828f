/**
 * Small helpers shared by the provider adapters: constant-time HMAC comparison, strict URL
 * encoding, header lookup and exact-decimal JSON parsing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { parse } from 'lossless-json';
import { formatAmount, parseAmount } from '@/lib/money';
import {
  onrampOrderInputSchema,
  type FetchLike,
  type OnrampOrder,
  type OnrampOrderInput,
  type OnrampProviderId,
  type WebhookHeaders,
} from './types';
import { OnrampProviderError } from './errors';

export function hmacSha256(key: string | Uint8Array, message: string): Buffer {
  return createHmac('sha256', key).update(message, 'utf8').digest();
}

/**
 * Equality of two strings in time independent of where they differ. Unequal lengths return early:
 * the length of a hex or base64url HMAC is public, only its content is secret.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * RFC 3986 percent-encoding of a query value: everything but unreserved characters
 * (A-Z a-z 0-9 - . _ ~) is escaped. encodeURIComponent leaves ! ' ( ) * alone, and a browser's URL
 * parser re-escapes ' in the query of an https URL; escaping them here keeps the query text the
 * same after any URL parse, so a signature computed over it still matches what the provider receives.
 */
function encodeQueryValue(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `?a=1&b=2` from ordered pairs; undefined values are left out. */
export function buildQuery(pairs: ReadonlyArray<readonly [string, string | undefined]>): string {
  const parts = pairs.flatMap(([name, value]) => (value === undefined ? [] : [`${encodeQueryValue(name)}=${encodeQueryValue(value)}`]));
  return parts.length ? `?${parts.join('&')}` : '';
}

/** A header by case-insensitive name, from a Fetch Headers object or a Node-style record. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) return headers.get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | readonly string[] | undefined>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(', ');
  }
  return undefined;
}

/** JSON whose numbers come back as their exact text ("0.1819"), never as floats. */
export function parseJsonExactly(text: string): unknown {
  return parse(text, null, (numberText) => numberText);
}

/**
 * A provider's amount (a JSON number kept as text, or a string) as a plain decimal string, or
 * undefined when absent, zero, negative or not a number. Exponent forms are expanded exactly.
 */
export function exactPositiveDecimal(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // 36 fractional digits is beyond any token's precision; parseAmount rejects zero and negatives.
  const parsed = parseAmount(value, 36);
  return parsed.ok ? formatAmount(parsed.baseUnits, 36) : undefined;
}

/** Validates an order for an adapter; failures become OnrampProviderError('invalid_order'). */
export function validateOrder(providerId: OnrampProviderId, input: OnrampOrderInput): OnrampOrder {
  const result = onrampOrderInputSchema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const param = issue?.path.join('.') || undefined;
  throw new OnrampProviderError(
    providerId,
    'invalid_order',
    `Invalid on-ramp order: ${param ?? 'order'} ${issue?.message ?? 'is invalid'}.`,
    {
      param,
    },
  );
}

/** The amount text normalised ("100.50" → "100.5"), exact. */
export function normaliseDecimal(text: string): string {
  const parsed = parseAmount(text, 36);
  if (!parsed.ok) throw new Error(`not a positive decimal: ${text}`);
  return formatAmount(parsed.baseUnits, 36);
}

/**
 * One call to a provider's HTTP API, with the same typed failures for every provider: unreachable or
 * timed out, 401/403 (our credentials), 5xx/429 (theirs, retry later), another status (the request), or
 * a body that is not JSON. The JSON is parsed exactly (amounts keep their digits).
 */
export async function requestProviderJson(
  provider: { id: OnrampProviderId; name: string },
  fetchImpl: FetchLike,
  url: string,
  init: RequestInit,
  timeoutMs: number,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchImpl(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new OnrampProviderError(provider.id, 'provider_unavailable', `${provider.name} could not be reached.`, { cause: error });
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) {
    const code =
      response.status === 401 || response.status === 403
        ? 'provider_unauthorized'
        : response.status >= 500 || response.status === 429
          ? 'provider_unavailable'
          : 'provider_rejected';
    throw new OnrampProviderError(provider.id, code, `${provider.name} answered ${response.status}.`, {
      status: response.status,
      detail: text,
    });
  }
  try {
    return parseJsonExactly(text);
  } catch {
    throw new OnrampProviderError(provider.id, 'provider_bad_response', `${provider.name} answered with a body that is not JSON.`, {
      status: response.status,
      detail: text,
    });
  }
}
