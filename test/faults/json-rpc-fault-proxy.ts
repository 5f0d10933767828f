/**
 * What ./rpc-fault-proxy.ts (EVM, in front of anvil) and ./solana-fault-proxy.ts (in front of a local Solana
 * cluster) share: the HTTP JSON-RPC proxy on loopback (single and batch requests, forwarding upstream, a 502
 * when the upstream fails) and the scenario switching (inject a plan, count the faults that fired, transport
 * faults taken in turn). Each proxy keeps its own plan, its own method-level faults and how its transport
 * faults answer.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

export type JsonRpcBody = JsonRpcRequest | JsonRpcRequest[];

/** The next `count` HTTP requests carrying one of `methods` (any, when omitted) fail, taking `kinds` in turn. */
interface TransportFaults<Kind extends string> {
  count: number;
  kinds: Kind[];
  methods?: string[];
}

export interface FaultProxy<Plan> {
  url: string;
  /** Replaces the faults in effect (an empty plan heals the proxy). */
  inject(plan: Plan): void;
  /** How often each fault fired since the last inject(). */
  counts(): Record<string, number>;
  close(): Promise<void>;
}

/** Whether a fault limited to `methods` (any, when omitted) applies to `method`. */
export const matches = (methods: string[] | undefined, method: string) => !methods || methods.includes(method);

/** Sends one request to the node and returns its answer. */
export function forwardTo(upstream: string): (request: JsonRpcRequest) => Promise<unknown> {
  return async (request) => {
    const response = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    return response.json();
  };
}

/**
 * The faults in effect and what fired. `plan` is read afresh at each use (a scenario may switch while a
 * request waits); `copy` is what inject() keeps of the caller's plan.
 */
export function faultScenario<Kind extends string, Plan extends { transportFaults?: TransportFaults<Kind> }>(copy: (plan: Plan) => Plan) {
  let plan = {} as Plan;
  let fired: Record<string, number> = {};
  const fire = (name: string) => (fired[name] = (fired[name] ?? 0) + 1);
  return {
    get plan() {
      return plan;
    },
    fire,
    inject(next: Plan) {
      plan = copy(next);
      fired = {};
    },
    counts: () => ({ ...fired }),
    /** The transport fault this request meets, if any (and counts it down). */
    transportFaultFor(body: JsonRpcBody): Kind | undefined {
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
    },
  };
}

/**
 * The proxy's HTTP server on a free loopback port. Each request's body goes first to `transportFault`, which
 * answers it itself (and returns true) when a transport fault applies; otherwise each call goes to `handle`
 * and the answers go back as one JSON body. Any error answers 502.
 */
export async function serveJsonRpc(options: {
  transportFault: (body: JsonRpcBody, req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  handle: (request: JsonRpcRequest) => Promise<unknown>;
}): Promise<{ url: string; server: Server }> {
  const { transportFault, handle } = options;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonRpcBody;
        if (await transportFault(body, req, res)) return;
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
  return { url: `http://127.0.0.1:${port}`, server };
}
