/**
 * Verification of an HS256 JSON Web Token for Transak's signed webhooks, with `jose` doing the JWS part
 * (RFC 7515 compact serialization, RFC 7518 §3.2 HS256): only `alg: "HS256"` is accepted (so `none`,
 * RS256 … cannot choose a weaker check), no `crit` extension is accepted, the HMAC is compared in
 * constant time. What stays here is ours: several candidate secrets (key rotation, every one tried so
 * timing does not tell which matched), the payload parsed with its JSON numbers kept as exact text
 * (amounts stay exact: jose's own claim parsing would turn them into floats), and `exp`/`nbf` (RFC 7519
 * §4.1.4/4.1.5) checked on that exact text within the clock tolerance.
 */
import { compactVerify, decodeProtectedHeader, errors } from 'jose';
import { parseJsonExactly } from './wire';

type JwtFailureCode = 'malformed_signature' | 'unsupported_algorithm' | 'invalid_signature' | 'stale';

export type VerifyJwtResult =
  { ok: true; header: Record<string, unknown>; payload: Record<string, unknown> } | { ok: false; code: JwtFailureCode; message: string };

export async function verifyHs256Jwt(
  token: string,
  /** Shared secrets: strings are used as their UTF-8 bytes (as jsonwebtoken does), bytes as is. */
  secrets: readonly (string | Uint8Array)[],
  options: { now: Date; clockToleranceSeconds: number },
): Promise<VerifyJwtResult> {
  // jose accepts the `b64` extension (RFC 7797) by default; Transak signs no extension, so none is accepted.
  if (criticalExtensionsOf(token)) return { ok: false, code: 'unsupported_algorithm', message: 'JWT crit extensions are not supported' };
  const keys = secrets
    .filter((secret) => secret.length > 0)
    .map((secret) => (typeof secret === 'string' ? new TextEncoder().encode(secret) : secret));
  const attempts = await Promise.all(
    keys.map((key) =>
      compactVerify(token, key, { algorithms: ['HS256'] }).then(
        (verified) => ({ verified }),
        (error: unknown) => ({ error }),
      ),
    ),
  );
  const match = attempts.find((attempt) => 'verified' in attempt);
  if (!match || !('verified' in match)) {
    const failures = attempts.map((attempt) => ('error' in attempt ? attempt.error : undefined));
    return failureOf(failures.find((error) => !(error instanceof errors.JWSSignatureVerificationFailed)) ?? failures[0]);
  }

  const payload = decodeJsonObject(match.verified.payload);
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
  return { ok: true, header: { ...match.verified.protectedHeader }, payload };
}

function failureOf(error: unknown): VerifyJwtResult & { ok: false } {
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return { ok: false, code: 'unsupported_algorithm', message: `JWT refused: ${error.message}; only HS256 is accepted` };
  }
  if (error instanceof errors.JWSSignatureVerificationFailed || error === undefined) {
    return { ok: false, code: 'invalid_signature', message: 'the JWT signature does not match any configured key' };
  }
  return {
    ok: false,
    code: 'malformed_signature',
    message: 'not a valid JWS compact serialization (three base64url segments, JSON header)',
  };
}

function criticalExtensionsOf(token: string): boolean {
  try {
    return decodeProtectedHeader(token).crit !== undefined;
  } catch {
    return false; // malformed: compactVerify says how
  }
}

function decodeJsonObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value = parseJsonExactly(new TextDecoder().decode(bytes));
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
