/**
 * The SSRF guard (with deliver-webhook-request.ts, which applies it to each request). Keeps webhook deliveries away from our own network (SSRF). A merchant chooses the URL, so without
 * this guard a live endpoint of `http://169.254.169.254/…` or `https://10.0.0.5/…` would make
 * Chargeport's servers call their cloud metadata service or internal hosts and record the answer
 * in a delivery log the merchant can read.
 *
 * The rules:
 * - live mode: https only, and every address the host resolves to must be public unicast;
 * - test mode: http is allowed and so is loopback (localhost, 127.0.0.1, ::1), so a merchant can point
 *   test endpoints at a receiver on their machine while developing against a local Chargeport —
 *   unless the caller passes `allowLoopback: false` (a hosted deployment, WEBHOOKS_ALLOW_LOOPBACK=false,
 *   where loopback is Chargeport's own machine). Private, link-local (metadata), CGNAT and other
 *   special ranges stay refused in test mode too;
 * - no credentials in the URL;
 * - the name is resolved once, every address is checked, and the socket connects only to those
 *   checked addresses (`pinnedLookup`), so a DNS answer that changes between check and connect
 *   (DNS rebinding) cannot redirect the request;
 * - redirects are never followed: a 3xx is a failed delivery (`redirect_not_followed`); following one
 *   would send the signed body to a URL nobody checked;
 * - one total timeout covers DNS, connect, TLS, the answer and its body; only the first
 *   `maxBodyBytes` of the answer are read (kept for the delivery log); an answer longer than that, or
 *   cut short, closes the connection;
 * - a caller may pass a keep-alive agent of the endpoint's own (endpoint-agents.ts): a new socket still
 *   connects only to the addresses checked for this request, and a reused one is connected to an address
 *   checked when it was opened (the checks are about the address, which does not change class).
 *
 * Address classes come from ipaddr.js: anything whose range is not `unicast` is refused (private,
 * loopback, linkLocal, carrierGradeNat, uniqueLocal, unspecified, multicast, broadcast, reserved,
 * 6to4, teredo, NAT64 …); IPv4-mapped IPv6 is judged as the IPv4 address it carries; other IPv6 must
 * also lie in 2000::/3, the only block assigned as global unicast (this catches IPv4-compatible
 * `::7f00:1`, which ipaddr.js calls unicast).
 */
import net from 'node:net';
import ipaddr from 'ipaddr.js';

export type WebhookMode = 'test' | 'live';

export type UrlRefusalCode = 'invalid_url' | 'unsupported_scheme' | 'https_required' | 'credentials_in_url' | 'refused_address';

export type UrlCheck = { ok: true; url: URL } | { ok: false; code: UrlRefusalCode; message: string };

/** Extra rules of the caller. */
export interface TargetPolicy {
  /** Test mode may reach loopback addresses (default true). Live mode never may. */
  allowLoopback?: boolean;
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

function isLoopbackAllowed(mode: WebhookMode, policy: TargetPolicy): boolean {
  return mode === 'test' && policy.allowLoopback !== false;
}

/** Why `address` is refused in `mode`, or null when a webhook may be sent to it. */
export function addressRefusal(address: string, mode: WebhookMode, policy: TargetPolicy = {}): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    if (net.isIP(address) === 0) throw new Error('not an IP');
    parsed = ipaddr.process(address);
  } catch {
    return `${address} is not an IP address`;
  }
  const range = parsed.range();
  if (range === 'loopback' && isLoopbackAllowed(mode, policy)) return null;
  if (range !== 'unicast') return `${address} is a ${range} address`;
  if (parsed.kind() === 'ipv6' && !parsed.match(GLOBAL_UNICAST_V6)) return `${address} is not a global unicast address`;
  return null;
}

/** Static check of an endpoint URL, when it is created or changed (no DNS). */
export function checkWebhookUrl(raw: string, mode: WebhookMode, policy: TargetPolicy = {}): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, code: 'invalid_url', message: 'The webhook URL is not a valid absolute URL.' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return { ok: false, code: 'unsupported_scheme', message: 'A webhook URL starts with https:// (or http:// in test mode).' };
  }
  if (mode === 'live' && url.protocol !== 'https:') {
    return { ok: false, code: 'https_required', message: 'Live-mode webhook endpoints must use https://.' };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      code: 'credentials_in_url',
      message: 'A webhook URL must not contain a user name or password; verify the signature instead.',
    };
  }
  // WHATWG URL has already turned 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 into 127.0.0.1.
  const host = bareHostname(url);
  if (net.isIP(host) !== 0) {
    const refusal = addressRefusal(host, mode, policy);
    if (refusal) return { ok: false, code: 'refused_address', message: `Webhooks cannot be sent to ${describeTarget(refusal, mode)}.` };
  } else if (!isLoopbackAllowed(mode, policy) && isLocalhostName(host)) {
    return {
      ok: false,
      code: 'refused_address',
      message:
        mode === 'live'
          ? 'Live-mode webhooks cannot be sent to localhost; use a test-mode endpoint while developing.'
          : 'This Chargeport does not send webhooks to localhost; expose your receiver at a public URL (e.g. through a tunnel).',
    };
  }
  return { ok: true, url };
}

/** `url.hostname` without IPv6 brackets or a trailing dot. */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** `localhost` and its subdomains always mean loopback (RFC 6761), whatever DNS says. */
function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

export function describeTarget(refusal: string, mode: WebhookMode): string {
  return mode === 'live' ? `${refusal}; live-mode endpoints must be public` : refusal;
}
