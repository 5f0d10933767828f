'use server';

import { cookies } from 'next/headers';
import { COUNTRY_COOKIE, COUNTRY_COOKIE_MAX_AGE, isCountryCode } from './country';

/** Remembers the consumer's chosen country (location selector) for a year. Not a secret: readable, Lax. */
export async function setCountryAction(country: string): Promise<{ ok: boolean }> {
  if (!isCountryCode(country)) return { ok: false };
  (await cookies()).set(COUNTRY_COOKIE, country.toUpperCase(), {
    maxAge: COUNTRY_COOKIE_MAX_AGE,
    path: '/',
    sameSite: 'lax',
    secure: process.env.NODE_ENV === 'production' && (process.env.APP_URL ?? '').startsWith('https:'),
  });
  return { ok: true };
}
