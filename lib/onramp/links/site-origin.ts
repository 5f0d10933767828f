/**
 * The hosted checkout may live on its own host (CHECKOUT_URL, e.g. https://pay.example) next to the app
 * (APP_URL). The spec makes that site's `/` the on-ramp, and a buyer who started there should come back
 * there from the provider. The request's host is compared with the configured URLs only: a forged Host
 * header can pick between the two configured origins, never make us link elsewhere.
 */
import type { HeaderReader } from '@/lib/geo/country';

export interface SiteUrls {
  APP_URL: string;
  CHECKOUT_URL?: string;
}

function requestHost(headers: HeaderReader): string | undefined {
  // A proxy in front of Next.js names the public host here; only its first entry is the client's.
  const host = (headers.get('x-forwarded-host') ?? headers.get('host'))?.split(',')[0]?.trim().toLowerCase();
  return host || undefined;
}

/** Whether this request came in on the checkout site's own host (CHECKOUT_URL set and not the app's). */
export function isCheckoutSiteRequest(headers: HeaderReader, urls: SiteUrls): boolean {
  if (!urls.CHECKOUT_URL) return false;
  const checkout = new URL(urls.CHECKOUT_URL);
  if (checkout.host === new URL(urls.APP_URL).host) return false;
  return requestHost(headers) === checkout.host;
}

/** The origin to send buyers back to: the checkout site when they are on it, else the app. */
export function onrampSiteOrigin(headers: HeaderReader, urls: SiteUrls): string {
  return new URL(isCheckoutSiteRequest(headers, urls) ? urls.CHECKOUT_URL! : urls.APP_URL).origin;
}
