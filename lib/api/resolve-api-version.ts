/**
 * Dated API versions, as Stripe's: the version of a request decides the shape of what it gets
 * (docs/api-changelog.md lists them and what changed).
 *
 *  - A request may send `Chargeport-Version: <date>`; a date that is not a known version → 400
 *    unsupported_api_version before anything else is done (no key check, no rate-limit point, no pin).
 *  - An API key is pinned to the version current at its first authenticated request that passes the
 *    key's own checks (kind, origin), stored on the key row (lib/api-keys/pin-api-version.ts).
 *  - The version used: the header if sent, else the key's pinned version, else the current one.
 *  - Every merchant API response says which one it used in `Chargeport-Version` (withApiKey).
 */
import type { ApiKey } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { pinApiVersion } from '@/lib/api-keys/pin-api-version';

/** Every version the API answers to, oldest first; the last is the current one. Add a changelog entry with each. */
export const API_VERSIONS = ['2026-11-27'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];
export const CURRENT_API_VERSION: ApiVersion = API_VERSIONS[API_VERSIONS.length - 1]!;
export const API_VERSION_HEADER = 'chargeport-version';

function isApiVersion(value: string): value is ApiVersion {
  return (API_VERSIONS as readonly string[]).includes(value);
}

/** The version the request asks for, undefined when it sends none; throws unsupported_api_version for an unknown one. */
export function requestedApiVersion(headers: Headers): ApiVersion | undefined {
  const sent = headers.get(API_VERSION_HEADER)?.trim();
  if (!sent) return undefined;
  if (isApiVersion(sent)) return sent;
  throw new AppError(
    'unsupported_api_version',
    `Unknown Chargeport-Version "${sent.slice(0, 40)}". Known versions: ${API_VERSIONS.join(', ')} (current: ${CURRENT_API_VERSION}). Send one of them, or no header to use your key's pinned version.`,
  );
}

/**
 * The version an authenticated request runs under: `requested` if sent, else the key's pinned version.
 * Pins an unpinned key to the current version (one write per key, on its first request) unless `pin`
 * is false: a request refused before it counts (a publishable key from a foreign origin) changes nothing.
 */
export async function resolveApiVersion(input: {
  requested: ApiVersion | undefined;
  apiKey: Pick<ApiKey, 'id' | 'apiVersion'>;
  pin?: boolean;
}): Promise<ApiVersion> {
  const pinned =
    input.pin === false ? (input.apiKey.apiVersion ?? CURRENT_API_VERSION) : await pinApiVersion(input.apiKey, CURRENT_API_VERSION);
  if (input.requested) return input.requested;
  // A pin to a version since retired falls back to the current one.
  return isApiVersion(pinned) ? pinned : CURRENT_API_VERSION;
}
