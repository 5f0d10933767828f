/**
 * The address of the TCP peer that sent each request, which Next.js does not expose: it only copies
 * it into `x-forwarded-for` when the client sent none, so a client that sends its own header hides it.
 * `recordPeerAddresses()` (called once from instrumentation.ts) listens on Node's
 * `http.server.request.start` diagnostics channel, which fires before Next.js sees the request, and
 * stamps the request with the forwarded chain as it arrived plus the socket's address.
 *
 * The stamp's header name carries a random per-process suffix: a request that arrived before the
 * listener was installed (or a client guessing) cannot forge it.
 */
import { randomBytes } from 'node:crypto';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

const state = globalThis as unknown as { __chargeportPeerHeader?: string };

/** Installs the listener (idempotent). Node runtime only. */
export function recordPeerAddresses(): void {
  if (state.__chargeportPeerHeader) return;
  const header = `x-chargeport-peer-${randomBytes(12).toString('hex')}`;
  state.__chargeportPeerHeader = header;
  diagnosticsChannel.subscribe('http.server.request.start', (message) => {
    const { request, socket } = message as { request: IncomingMessage; socket: Socket };
    const forwarded = request.headers['x-forwarded-for'];
    const chain = [...(Array.isArray(forwarded) ? forwarded : forwarded !== undefined ? [forwarded] : []), socket.remoteAddress ?? ''];
    request.headers[header] = chain.join(', ');
  });
}

/**
 * `X-Forwarded-For` as it reached this process, followed by the socket's peer address, or null when the
 * request was not stamped (no listener: a request handler called directly, as in unit tests).
 */
export function peerChainFrom(headers: { get(name: string): string | null }): string[] | null {
  const header = state.__chargeportPeerHeader;
  const value = header ? headers.get(header) : null;
  if (value === null) return null;
  // Entries stay in place even when empty: dropping one would shift which hop counts as trusted.
  return value.split(',').map((entry) => entry.trim());
}
