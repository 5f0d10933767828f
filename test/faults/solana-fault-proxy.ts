/**
 * A JSON-RPC proxy on loopback in front of a local Solana cluster (scripts/stack/solana-cluster.ts), the Solana
 * sibling of ./rpc-fault-proxy.ts for test/faults/solana-faults.test.ts: the app talks to the proxy as its
 * RPC_URL_SOLANA, and a scenario decides what goes wrong with the methods the Solana engine uses —
 * `sendTransaction` lost before the node or answered with an error after it, `getSignatureStatuses` failing or
 * answering "not seen" for a landed signature, HTTP 429 / 503, and hangs past the client's timeout.
 */
import { getBase58Encoder, getBase64Encoder, getSignatureFromTransaction, getTransactionDecoder } from '@solana/kit';
import { faultScenario, forwardTo, matches, serveJsonRpc, type FaultProxy, type JsonRpcRequest } from './json-rpc-fault-proxy';

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

export type SolanaFaultProxy = FaultProxy<SolanaFaultPlan>;

/** The signature of a sendTransaction's wire bytes (base64, or the RPC's default base58), as a node answers it. */
function signatureOf(params: unknown[] | undefined): string {
  const [wire, config] = (params ?? []) as [string, { encoding?: string } | undefined];
  const bytes = config?.encoding === 'base64' ? getBase64Encoder().encode(wire) : getBase58Encoder().encode(wire);
  return getSignatureFromTransaction(getTransactionDecoder().decode(bytes));
}

export async function startSolanaFaultProxy(upstream: string, random: () => number = Math.random): Promise<SolanaFaultProxy> {
  // A copy of transportFaults too: counting them down leaves the caller's plan as it was.
  const scenario = faultScenario<SolanaTransportFault, SolanaFaultPlan>((next) => ({
    ...next,
    ...(next.transportFaults ? { transportFaults: { ...next.transportFaults } } : {}),
  }));
  const { fire } = scenario;
  const forward = forwardTo(upstream);
  const pending = new Set<() => void>();

  const handle = async (request: JsonRpcRequest): Promise<unknown> => {
    const error = (message: string) => ({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message } });
    if (scenario.plan.errorRate && matches(scenario.plan.errorMethods, request.method) && random() < scenario.plan.errorRate) {
      fire(`error_${request.method}`);
      return error('injected fault: upstream unavailable');
    }
    if (request.method === 'sendTransaction') {
      const { plan } = scenario;
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
    if (request.method === 'getSignatureStatuses' && scenario.plan.missingStatusRate && Array.isArray(answer.result?.value)) {
      const value = answer.result.value.map((status) => {
        if (status === null || random() >= scenario.plan.missingStatusRate!) return status;
        fire('missing_status');
        return null;
      });
      return { ...answer, result: { ...answer.result, value } };
    }
    return answer;
  };

  const { url, server } = await serveJsonRpc({
    handle,
    transportFault: async (body, req, res) => {
      const fault = scenario.transportFaultFor(body);
      if (fault === 'http_429' || fault === 'http_503') {
        res.writeHead(fault === 'http_429' ? 429 : 503, { 'content-type': 'text/plain' });
        res.end(fault === 'http_429' ? 'Too Many Requests' : 'Service Unavailable');
        return true;
      }
      if (fault === 'hang') {
        const { hangMs = 12_000, forward: reaches } = scenario.plan.transportFaults!;
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
        req.socket.destroy();
        return true;
      }
      return false;
    },
  });
  return {
    url,
    inject: scenario.inject,
    counts: scenario.counts,
    close: async () => {
      for (const release of [...pending]) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
