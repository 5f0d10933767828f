/**
 * A JSON-RPC proxy on loopback in front of an anvil node, for the fault-injection suite: the app talks to
 * the proxy as its RPC endpoint, and a scenario decides what goes wrong — errors, timeouts, stale or
 * inconsistent answers, sends that are acknowledged but never reach the node.
 */
import { faultScenario, forwardTo, matches, serveJsonRpc, type FaultProxy, type JsonRpcRequest } from './json-rpc-fault-proxy';

export interface FaultPlan {
  /** Chance (0–1) that a call of one of these methods (or any, when omitted) answers a JSON-RPC error. */
  errorRate?: number;
  errorMethods?: string[];
  /** Calls of these methods hang this long before answering (the client times out first when it is long). */
  delayMs?: number;
  delayMethods?: string[];
  /** eth_blockNumber answers this many blocks behind the node (a lagging node behind a balancer). */
  staleBlocks?: number;
  /** Chance that eth_getTransactionReceipt / eth_getTransactionByHash answer null for a mined transaction. */
  missingReceiptRate?: number;
  /** eth_sendRawTransaction answers the hash but the node never gets the transaction, this many times. */
  loseSends?: number;
  /** eth_sendRawTransaction reaches the node, but the answer is an error (a timeout after the node took it). */
  failAfterSends?: number;
  /**
   * eth_sendRawTransaction answered with a node's definite refusal (`refusal`, default "insufficient funds for
   * gas * price + value") without reaching the node, this many times: the engine's cancel path.
   */
  refuseSends?: number;
  refusal?: string;
  /**
   * The next `count` HTTP requests carrying one of `methods` (any, when omitted) fail at the transport,
   * never reaching the node: each takes the next of `kinds` in turn (N10: a slow or rate-limited provider).
   */
  transportFaults?: { count: number; kinds: TransportFault[]; methods?: string[] };
}

/**
 * How a provider fails without a node's answer: HTTP 429 or 503 (text body), the connection reset,
 * JSON-RPC -32005 (limit exceeded) or -32603 (internal error), or no answer before the client's timeout
 * (`hang`: held 11 s, past the app's 10 s RPC timeout, then dropped).
 */
type TransportFault = 'http_429' | 'http_503' | 'reset' | 'rpc_limit' | 'rpc_internal' | 'hang';

export type RpcFaultProxy = FaultProxy<FaultPlan>;

export async function startRpcFaultProxy(upstream: string, random: () => number = Math.random): Promise<RpcFaultProxy> {
  const scenario = faultScenario<TransportFault, FaultPlan>((next) => ({ ...next }));
  const { fire } = scenario;
  const forward = forwardTo(upstream);

  const handle = async (request: JsonRpcRequest): Promise<unknown> => {
    const error = (message: string) => ({ jsonrpc: '2.0', id: request.id, error: { code: -32000, message } });
    if (scenario.plan.delayMs && matches(scenario.plan.delayMethods, request.method)) {
      fire('delay');
      await new Promise((resolve) => setTimeout(resolve, scenario.plan.delayMs));
    }
    if (scenario.plan.errorRate && matches(scenario.plan.errorMethods, request.method) && random() < scenario.plan.errorRate) {
      fire('error');
      return error('injected fault: upstream unavailable');
    }
    if (request.method === 'eth_sendRawTransaction') {
      const { plan } = scenario;
      if (plan.loseSends && plan.loseSends > 0) {
        plan.loseSends--;
        fire('lost_send');
        // The hash of the signed bytes, as a node would answer, without the node ever seeing them.
        const { keccak256 } = await import('viem');
        return { jsonrpc: '2.0', id: request.id, result: keccak256(request.params![0] as `0x${string}`) };
      }
      if (plan.refuseSends && plan.refuseSends > 0) {
        plan.refuseSends--;
        fire('refused_send');
        return error(plan.refusal ?? 'insufficient funds for gas * price + value');
      }
      if (plan.failAfterSends && plan.failAfterSends > 0) {
        plan.failAfterSends--;
        fire('fail_after_send');
        await forward(request);
        return error('injected fault: timed out waiting for the node');
      }
    }
    if (
      scenario.plan.missingReceiptRate &&
      (request.method === 'eth_getTransactionReceipt' || request.method === 'eth_getTransactionByHash') &&
      random() < scenario.plan.missingReceiptRate
    ) {
      fire('missing_receipt');
      return { jsonrpc: '2.0', id: request.id, result: null };
    }
    const answer = (await forward(request)) as { result?: unknown };
    if (request.method === 'eth_blockNumber' && scenario.plan.staleBlocks && typeof answer.result === 'string') {
      fire('stale_block');
      const behind = BigInt(answer.result) - BigInt(scenario.plan.staleBlocks);
      return { ...answer, result: `0x${(behind > 0n ? behind : 0n).toString(16)}` };
    }
    return answer;
  };

  const { url, server } = await serveJsonRpc({
    handle,
    transportFault: async (body, req, res) => {
      const fault = scenario.transportFaultFor(body);
      if (!fault) return false;
      const rpcError = (code: number, message: string) =>
        (Array.isArray(body) ? body : [body]).map((request) => ({ jsonrpc: '2.0', id: request.id, error: { code, message } }));
      switch (fault) {
        case 'http_429':
          res.writeHead(429, { 'content-type': 'text/plain' });
          res.end('Too Many Requests');
          return true;
        case 'http_503':
          res.writeHead(503, { 'content-type': 'text/plain' });
          res.end('Service Unavailable');
          return true;
        case 'reset':
          req.socket.destroy();
          return true;
        case 'rpc_limit':
        case 'rpc_internal': {
          const errors = fault === 'rpc_limit' ? rpcError(-32005, 'limit exceeded') : rpcError(-32603, 'internal error');
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(Array.isArray(body) ? errors : errors[0]));
          return true;
        }
        case 'hang':
          await new Promise((resolve) => setTimeout(resolve, 11_000));
          req.socket.destroy();
          return true;
      }
    },
  });
  return {
    url,
    inject: scenario.inject,
    counts: scenario.counts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
