/**
 * One keep-alive connection pool per endpoint and URL, so a busy endpoint's deliveries reuse their
 * TCP (and TLS) connections instead of opening one per attempt — at hundreds of deliveries a second
 * the handshakes, not the requests, were the cost. A pool is never shared between endpoints (one
 * merchant's connection never carries another's request) and holds at most `maxSockets` connections,
 * the endpoint's concurrency cap. Where a new socket may connect is still decided per request by the
 * SSRF guard's pinned lookup (deliver-webhook-request.ts).
 *
 * Idle sockets close after IDLE_SOCKET_MS, below Node's default server keep-alive (5 s), so we rarely
 * reuse a socket the receiver is closing at that moment; pools unused for IDLE_POOL_MS are dropped.
 */
import http from 'node:http';
import https from 'node:https';

const IDLE_SOCKET_MS = 4_000;
const IDLE_POOL_MS = 60_000;

interface Pool {
  agent: http.Agent;
  usedAt: number;
}

const pools = new Map<string, Pool>();
let sweptAt = 0;

/** The pool of `endpointId` for `url` (a new URL gets a new pool; the old one idles out). */
export function endpointAgent(endpointId: string, url: string, maxSockets: number): http.Agent {
  const now = Date.now();
  if (now - sweptAt > IDLE_POOL_MS) {
    sweptAt = now;
    for (const [key, pool] of pools) {
      if (now - pool.usedAt > IDLE_POOL_MS) {
        pool.agent.destroy();
        pools.delete(key);
      }
    }
  }
  const key = `${endpointId} ${url}`;
  let pool = pools.get(key);
  if (!pool) {
    const options = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' as const };
    pool = { agent: url.startsWith('https:') ? new https.Agent(options) : new http.Agent(options), usedAt: now };
    pools.set(key, pool);
  }
  pool.usedAt = now;
  return pool.agent;
}

/** Closes every pool (the queue stops). */
export function closeEndpointAgents(): void {
  for (const pool of pools.values()) pool.agent.destroy();
  pools.clear();
}
