/**
 * A JSON-RPC proxy on loopback in front of a local Solana cluster (scripts/stack/solana-cluster.ts), the Solana
 * sibling of ./rpc-fault-proxy.ts for test/faults/solana-faults.test.ts: the app talks to the proxy as its
 * RPC_URL_SOLANA, and a scenario decides what goes wrong with the methods the Solana engine uses —
 * `sendTransaction` lost before the node or answered with an error after it, `getSignatureStatuses` failing or
 * answering "not seen" for a landed signature, HTTP 429 / 503, and hangs past the client's timeout.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getBase58Encoder, getBase64Encoder, getSignatureFromTransaction, getTransactionDecoder } from '@solana/kit';

export interface SolanaFaultPlan {
  /** Chance (0–1) that a call of one of these methods (any, when omitted) answers a JSON-RPC error. */
  errorRate?: number;
  errorMethods?: string[];
  /** sendTransaction answers the signature but the node never gets the transaction, this many times. */
  loseSends?: number;
  /** sendTransaction reaches the node (it lands), but the answer is an error, this many times. */
  failAfterSends?: number;
  /** Chance that getSignatureStatuses answers null (not seen) for each signature: a node without that history. */
  missingStatusRate?: number;
  /**
   * The next `count` HTTP requests carrying one of `methods` (any, when omitted) fail at the transport, each
   * taking the next of `kinds` in turn: HTTP 429 or 503, or `hang` (held `hangMs`, default 12 s, then the
   * connection dropped; with `forward`, the node gets the request first — a send whose answer never comes).
   */
  transportFaults?: { count: number; kinds: SolanaTransportFault[]; methods?: string[]; hangMs?: number; forward?: boolean };
}

type SolanaTransportFault = 'http_429' | 'http_503' | 'hang';

interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

export interface SolanaFaultProxy {
  url: string;
  /** Replaces the faults in effect (an empty plan heals the proxy). */
  inject(plan: SolanaFaultPlan): void;
  /** How often each fault fired since the last inject(). */
  counts(): Record<string, number>;
  close(): Promise<void>;
}

/** The signature of a sendTransaction's wire bytes (base64, or the RPC's default base58), as a node answers it. */
function signatureOf(params: unknown[] | undefined): string {
  const [wire, config] = (params ?? []) as [string, { encoding?: string } | undefined];
  const bytes = config?.encoding === 'base64' ? getBase64Encoder().encode(wire) : getBase58Encoder().encode(wire);
  return getSignatureFromTransaction(getTransactionDecoder().decode(bytes));
}

export async function startSolanaFaultProxy(upstream: string, random: () => number = Math.random): Promise<SolanaFaultProxy> {
  let plan: SolanaFaultPlan = {};
  let fired: Record<string, number> = {};
  const fire = (name: string) => (fired[name] = (fired[name] ?? 0) + 1);
  const matches = (methods: string[] | undefined, method: string) => !methods || methods.includes(method);
  const pending = new Set<() => void>();

  const forward = async (request: JsonRpcRequest): Promise<unknown> => {
    const response = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    return response.json();
  };

  const handle = async (request: JsonRpcRequest): Promise<unknown> => {
    const error = (message: string) => ({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message } });
    if (plan.errorRate && matches(plan.errorMethods, request.method) && random() < plan.errorRate) {
      fire(`error_${request.method}`);
      return error('injected fault: upstream unavailable');
    }
    if (request.method === 'sendTransaction') {
      if (plan.loseSends && plan.loseSends > 0) {
        plan.loseSends--;
        fire('lost_send');
        return { jsonrpc: '2.0', id: request.id, result: signatureOf(request.params) };
      }
      if (plan.failAfterSends && plan.failAfterSends > 0) {
        plan.failAfterSends--;
        fire('fail_after_send');
        await forward(request);
        return error('injected fault: timed out waiting for the node');
      }
    }
    const answer = (await forward(request)) as { result?: { value?: unknown[] } };
    if (request.method === 'getSignatureStatuses' && plan.missingStatusRate && Array.isArray(answer.result?.value)) {
      const value = answer.result.value.map((status) => {
        if (status === null || random() >= plan.missingStatusRate!) return status;
        fire('missing_status');
        return null;
      });
      return { ...answer, result: { ...answer.result, value } };
    }
    return answer;
  };

  /** The transport fault this request meets, if any (and counts it down). */
  const transportFaultFor = (body: JsonRpcRequest | JsonRpcRequest[]): SolanaTransportFault | undefined => {
    const faults = plan.transportFaults;
    if (!faults || faults.count <= 0 || !faults.kinds.length) return undefined;
    const requests = Array.isArray(body) ? body : [body];
    if (!requests.some((request) => matches(faults.methods, request.method))) return undefined;
    const used = Object.entries(fired)
      .filter(([name]) => name.startsWith('transport_'))
      .reduce((sum, [, n]) => sum + n, 0);
    faults.count--;
    const kind = faults.kinds[used % faults.kinds.length]!;
    fire(`transport_${kind}`);
    return kind;
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcRequest | JsonRpcRequest[];
        const fault = transportFaultFor(body);
        if (fault === 'http_429' || fault === 'http_503') {
          res.writeHead(fault === 'http_429' ? 429 : 503, { 'content-type': 'text/plain' });
          return res.end(fault === 'http_429' ? 'Too Many Requests' : 'Service Unavailable');
        }
        if (fault === 'hang') {
          const { hangMs = 12_000, forward: reaches } = plan.transportFaults!;
          if (reaches) await Promise.all((Array.isArray(body) ? body : [body]).map(forward));
          await new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(timer);
              pending.delete(done);
              resolve();
            };
            const timer = setTimeout(done, hangMs);
            pending.add(done);
          });
          return req.socket.destroy();
        }
        const answer = Array.isArray(body) ? await Promise.all(body.map(handle)) : await handle(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      } catch (error) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(error instanceof Error ? error.message : String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    inject(next) {
      plan = { ...next, ...(next.transportFaults ? { transportFaults: { ...next.transportFaults } } : {}) };
      fired = {};
    },
    counts: () => ({ ...fired }),
    close: async () => {
      for (const release of [...pending]) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
