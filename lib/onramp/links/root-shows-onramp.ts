/**
 * What `GET /` renders (spec: the on-ramp is `GET {checkout_url}/` with chain, token, wallet,
 * wallet_label). On the checkout site's own host (CHECKOUT_URL set to another host than APP_URL) `/` is
 * always the on-ramp. Elsewhere — one host for everything, `npm run dev` — `/` is the landing page unless
 * the link carries an on-ramp parameter: then it is a merchant's on-ramp link and the on-ramp renders,
 * so the same link works on every install. The values are not judged here: the on-ramp checks them
 * (onramp-params.ts) and explains what it ignored or refused.
 */
import type { HeaderReader } from '@/lib/geo/country';
import { hasOnrampLinkParams, type SearchParams } from './onramp-params';
import { isCheckoutSiteRequest, type SiteUrls } from './site-origin';

export function rootShowsOnramp(request: { headers: HeaderReader; urls: SiteUrls; query: SearchParams }): boolean {
  return isCheckoutSiteRequest(request.headers, request.urls) || hasOnrampLinkParams(request.query);
}
