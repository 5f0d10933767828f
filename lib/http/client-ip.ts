/**
 * The client's IP address, for per-IP limits and the audit log. Forwarded headers are believed only
 * as far as the configuration says they can be:
 *
 *  - `CLIENT_IP_HEADER` (e.g. `cf-connecting-ip`): a CDN that overwrites that header names the
 *    client. Only set it when the app cannot be reached except through that CDN.
 *  - `TRUSTED_PROXY_HOPS=n`: n reverse proxies in front of the app, each appending the address it saw
 *    to `X-Forwarded-For`. The chain is that header plus the socket's peer; the client is the n-th
 *    entry from the right (the right-most one no trusted proxy wrote). Entries further left were
 *    written by the client and are ignored.
 *  - Neither (default): the socket's peer; forwarded headers are ignored, so a client cannot pick a
 *    fresh address per request to reset a limit.
 *
 * The peer address comes from lib/http/peer-address.ts. Returns null when it is unknown.
 *
 * Per-IP limits key on `rateLimitKeyOfIp`, not on the address itself: one IPv6 customer is given a
 * whole /64 (2^64 addresses), so each address of it is not a client of its own. Logs and audit rows
 * keep the full address.
 */
import ipaddr from 'ipaddr.js';
import { env } from '@/lib/env';
import { peerChainFrom } from './peer-address';

type HeaderReader = { get(name: string): string | null };

export function clientIpFrom(headers: HeaderReader): string | null {
  const config = env();
  if (config.CLIENT_IP_HEADER) {
    const fromCdn = normaliseIp(headers.get(config.CLIENT_IP_HEADER));
    if (fromCdn) return fromCdn;
  }
  const chain = peerChainFrom(headers);
  if (!chain) return null;
  // Fewer entries than trusted hops: the request bypassed a proxy; the left-most entry is the best we know.
  return normaliseIp(chain[Math.max(0, chain.length - 1 - config.TRUSTED_PROXY_HOPS)]);
}

/** A valid IPv4 or IPv6 address in canonical form (IPv4-mapped IPv6 as IPv4), else null. */
function normaliseIp(value: string | null | undefined): string | null {
  const text = value?.trim();
  // Four-part decimal only: ipaddr.js also accepts forms such as `127.1` or `0x7f.0.0.1`.
  if (!text || !(ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text))) return null;
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().toString();
  return parsed.toString();
}

/**
 * The bucket a per-IP limit counts `ip` in: an IPv4 address as is (IPv4-mapped IPv6 too), an IPv6
 * address by its /64 (`2001:db8:1:2::/64`), what is not an address (`local`, a test's label) as given,
 * and an unknown one (null) as `unknown`.
 */
export function rateLimitKeyOfIp(ip: string | null | undefined): string {
  const text = ip?.trim();
  if (!text) return 'unknown';
  if (!(ipaddr.IPv4.isValidFourPartDecimal(text) || ipaddr.IPv6.isValid(text))) return text;
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(parts).toString()}/64`;
}
