/**
 * The buyer's country for the current request: their pick on the location selector (the cookie), else the
 * request's geolocation, else their language (country.ts). Pages and server actions read the request from
 * Next.js; a route handler passes its `request`.
 */
import 'server-only';
import { cookies, headers } from 'next/headers';
import { NextRequest } from 'next/server';
import { COUNTRY_COOKIE, countryFromRequest } from './country';

export async function requestCountry(request?: Request): Promise<ReturnType<typeof countryFromRequest>> {
  if (request) return countryFromRequest(request.headers, new NextRequest(request).cookies.get(COUNTRY_COOKIE)?.value);
  const [requestHeaders, cookieJar] = await Promise.all([headers(), cookies()]);
  return countryFromRequest(requestHeaders, cookieJar.get(COUNTRY_COOKIE)?.value);
}
