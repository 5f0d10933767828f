/**
 * The consumer's country, which decides the fiat payment methods offered (checkout, on-ramp).
 *
 * Order: the country they picked (cookie `cp_country`, a year) → the country the edge/CDN geolocated
 * (Cloudflare `cf-ipcountry`, Vercel `x-vercel-ip-country`, CloudFront `cloudfront-viewer-country`,
 * or a generic `x-country-code` set by your proxy) → the region of their preferred language
 * (Accept-Language `en-GB` → GB) → US. Only ISO 3166-1 alpha-2 codes we know are accepted.
 */
import { getCountries } from 'libphonenumber-js';

export const COUNTRY_COOKIE = 'cp_country';
export const COUNTRY_COOKIE_MAX_AGE = 365 * 24 * 60 * 60;
const DEFAULT_COUNTRY = 'US';

const GEO_HEADERS = ['cf-ipcountry', 'x-vercel-ip-country', 'cloudfront-viewer-country', 'x-country-code'] as const;
const KNOWN = new Set<string>(getCountries());

/** A known ISO 3166-1 alpha-2 code, either case. Anything else (a server action's argument may be any value) is not. */
export function isCountryCode(value: unknown): value is string {
  return typeof value === 'string' && value.length === 2 && KNOWN.has(value.toUpperCase());
}

export interface HeaderReader {
  get(name: string): string | null;
}

export function countryFromRequest(
  headers: HeaderReader,
  cookieValue: string | undefined,
): { country: string; source: 'cookie' | 'geo' | 'language' | 'default' } {
  if (isCountryCode(cookieValue)) return { country: cookieValue.toUpperCase(), source: 'cookie' };
  for (const name of GEO_HEADERS) {
    const value = headers.get(name)?.trim();
    if (isCountryCode(value)) return { country: value!.toUpperCase(), source: 'geo' };
  }
  for (const part of (headers.get('accept-language') ?? '').split(',')) {
    const region = part.split(';')[0]!.trim().split('-')[1];
    if (isCountryCode(region)) return { country: region!.toUpperCase(), source: 'language' };
  }
  return { country: DEFAULT_COUNTRY, source: 'default' };
}

/** Every country, with its English name, sorted by name: the selector's options. */
export function countryOptions(locale = 'en'): { code: string; name: string }[] {
  const names = new Intl.DisplayNames([locale], { type: 'region' });
  return [...KNOWN].map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) => a.name.localeCompare(b.name));
}
