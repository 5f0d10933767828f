/**
 * Verification of an HS256 JSON Web Token with node:crypto, for Transak's signed webhooks.
 *
 * Rules implemented (RFC 7515 JWS compact serialization, RFC 7518 §3.2 HS256, RFC 7519 §4.1.4/4.1.5):
 * - exactly three base64url segments, no padding;
 * - the protected header's `alg` must be exactly "HS256": `none`, RS256, HS512 … are refused, so a
 *   token cannot choose a weaker check or pretend a shared secret is a public key;
 * - a `crit` header names extensions we do not implement, so such tokens are refused;
 * - signature = base64url(HMAC-SHA256(secret, ASCII(base64url(header) "." base64url(payload))))
 *   compared in constant time, against each candidate secret (key rotation);
 * - `exp`/`nbf`, when present, must be numbers and hold at `now` within the clock tolerance.
 * The payload's JSON numbers are kept as their exact text (amounts stay exact).
 */
import { constantTimeEqual, hmacSha256, parseJsonExactly } from './wire';

const BASE64URL_SEGMENT = /^[A-Za-z0-9_-]+$/;

type JwtFailureCode = 'malformed_signature' | 'unsupported_algorithm' | 'invalid_signature' | 'stale';

export type VerifyJwtResult =
  { ok: true; header: Record<string, unknown>; payload: Record<string, unknown> } | { ok: false; code: JwtFailureCode; message: string };

export function verifyHs256Jwt(
  token: string,
  /** Shared secrets: strings are used as their UTF-8 bytes (as jsonwebtoken does), bytes as is. */
  secrets: readonly (string | Uint8Array)[],
  options: { now: Date; clockToleranceSeconds: number },
): VerifyJwtResult {
  const segments = token.split('.');
  if (segments.length !== 3 || !segments.every((segment) => BASE64URL_SEGMENT.test(segment))) {
    return { ok: false, code: 'malformed_signature', message: 'not a JWS compact serialization (three base64url segments)' };
  }
  const [encodedHeader, encodedPayload, signature] = segments as [string, string, string];

  const header = decodeJsonObject(encodedHeader);
  if (!header) return { ok: false, code: 'malformed_signature', message: 'the JWT header is not a JSON object' };
  if (header.alg !== 'HS256') {
    return { ok: false, code: 'unsupported_algorithm', message: `JWT alg ${JSON.stringify(header.alg)} refused; only HS256 is accepted` };
  }
  if (header.crit !== undefined) return { ok: false, code: 'unsupported_algorithm', message: 'JWT crit extensions are not supported' };

  const signingInput = `${encodedHeader}.${encodedPayload}`;
  // Compare every candidate (no early exit on a match) so timing does not reveal which key matched.
  let matched = false;
  for (const secret of secrets) {
    if (secret.length === 0) continue;
    const expected = hmacSha256(secret, signingInput).toString('base64url');
    if (constantTimeEqual(expected, signature)) matched = true;
  }
  if (!matched) return { ok: false, code: 'invalid_signature', message: 'the JWT signature does not match any configured key' };

  const payload = decodeJsonObject(encodedPayload);
  if (!payload) return { ok: false, code: 'malformed_signature', message: 'the JWT payload is not a JSON object' };

  const nowSeconds = options.now.getTime() / 1000;
  const exp = numericDate(payload.exp);
  const nbf = numericDate(payload.nbf);
  if (exp === null || nbf === null) return { ok: false, code: 'malformed_signature', message: 'JWT exp/nbf must be NumericDate numbers' };
  if (exp !== undefined && nowSeconds >= exp + options.clockToleranceSeconds) {
    return { ok: false, code: 'stale', message: 'the JWT has expired' };
  }
  if (nbf !== undefined && nowSeconds + options.clockToleranceSeconds < nbf) {
    return { ok: false, code: 'stale', message: 'the JWT is not valid yet' };
  }
  return { ok: true, header, payload };
}

function decodeJsonObject(segment: string): Record<string, unknown> | undefined {
  try {
    const value = parseJsonExactly(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** undefined: claim absent; null: present but not a number (numbers arrive as exact text). */
function numericDate(value: unknown): number | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(value)) return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) ? seconds : null;
}
