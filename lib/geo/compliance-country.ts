/**
 * The location compliance rules use (the swap on-ramp's "not in the United States"): only the country a
 * trusted CDN geolocated, from the header COMPLIANCE_COUNTRY_HEADER names. The location selector (a
 * cookie) and Accept-Language are the buyer's word: they choose what is displayed and which providers
 * are listed, never what is allowed. Without the header configured, or a valid value in it, the
 * location is unknown (null) and callers decide conservatively (ADR docs/adr/0021-compliance-location.md).
 */
import { env } from '@/lib/env';
import { isCountryCode, type HeaderReader } from './country';

export function complianceCountryFrom(headers: HeaderReader): string | null {
  const name = env().COMPLIANCE_COUNTRY_HEADER;
  if (!name) return null;
  const value = headers.get(name)?.trim();
  return isCountryCode(value) ? value.toUpperCase() : null;
}
