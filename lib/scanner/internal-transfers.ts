/**
 * Native coin moved by contracts (internal calls): a Safe or ERC-4337 account paying, an exchange's batch
 * withdrawal. A block's transactions show only the top-level `to`/`value`; these transfers are found in
 * the block's call traces (docs/adr/0013-one-block-scanner.md):
 *
 *  - `trace_block` (Parity-style: Erigon, Nethermind, Reth, anvil, several providers), else
 *  - `debug_traceBlockByHash` with the `callTracer` (Geth and its forks: BSC, Polygon's Bor; providers'
 *    debug APIs), else
 *  - none: the RPC traces nothing, and the charge watcher falls back to deposit balances
 *    (./find-balance-rises.ts).
 *
 * Only calls that took effect count: a reverted frame and everything under it moved nothing. DELEGATECALL
 * and STATICCALL frames carry no value of their own. Top-level frames are left to the block's transactions.
 */
import { getAddress, toHex, type Hex, type PublicClient } from 'viem';

export type TraceMode = 'trace_block' | 'debug_trace' | 'none';

export interface InternalNativeTransfer {
  txHash: Hex;
  /** Position among the transaction's effective value calls (the transfer's identity within it). */
  position: number;
  from: Hex;
  to: Hex;
  value: bigint;
}

/** How long a probe's answer is trusted: a provider may enable tracing, or a probe may have met an outage. */
const PROBE_TTL_MS = 10 * 60_000;
const probed = new WeakMap<PublicClient, { mode: TraceMode; at: number }>();

/** Which tracing method the client's RPC offers (probed once, remembered for a while). */
export async function traceModeOf(client: PublicClient, now = Date.now()): Promise<TraceMode> {
  const known = probed.get(client);
  if (known && now - known.at < PROBE_TTL_MS) return known.mode;
  let mode: TraceMode = 'none';
  const head = await client.getBlock({ blockTag: 'latest' });
  if (await answers(() => traceBlock(client, head.number!))) mode = 'trace_block';
  else if (await answers(() => debugTraceBlock(client, head.hash!))) mode = 'debug_trace';
  probed.set(client, { mode, at: now });
  return mode;
}

/** Pins the mode for a client (tests exercise each one against the same node). */
export function setTraceMode(client: PublicClient, mode: TraceMode): void {
  probed.set(client, { mode, at: Number.POSITIVE_INFINITY });
}

async function answers(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return true;
  } catch {
    return false;
  }
}

/**
 * The effective internal native transfers of one block, or undefined when the traces are not of this
 * block (`blockHash` moved while reading) — the caller starts over.
 */
export async function internalNativeTransfers(
  client: PublicClient,
  mode: Exclude<TraceMode, 'none'>,
  block: { number: bigint; hash: Hex },
): Promise<InternalNativeTransfer[] | undefined> {
  if (mode === 'trace_block') {
    const traces = await traceBlock(client, block.number);
    if (traces.some((trace) => trace.blockHash && trace.blockHash.toLowerCase() !== block.hash.toLowerCase())) return undefined;
    return fromParityTraces(traces);
  }
  return fromCallTraces(await debugTraceBlock(client, block.hash));
}

// ---- Parity-style traces (trace_block) ----

export interface ParityTrace {
  type: 'call' | 'create' | 'suicide' | 'reward' | string;
  action: {
    callType?: string;
    from?: Hex;
    to?: Hex;
    value?: Hex;
    /** suicide */
    address?: Hex;
    refundAddress?: Hex;
    balance?: Hex;
  };
  blockHash?: Hex;
  traceAddress: number[];
  transactionHash?: Hex | null;
  error?: string;
}

function traceBlock(client: PublicClient, number: bigint): Promise<ParityTrace[]> {
  return client.request({ method: 'trace_block' as never, params: [toHex(number)] as never }) as Promise<ParityTrace[]>;
}

/** Flat traces in execution order; a frame took effect when neither it nor any ancestor failed. */
export function fromParityTraces(traces: readonly ParityTrace[]): InternalNativeTransfer[] {
  const transfers: InternalNativeTransfer[] = [];
  const failedByTx = new Map<string, string[]>();
  const positions = new Map<string, number>();
  for (const trace of traces) {
    const txHash = trace.transactionHash;
    if (!txHash) continue; // block rewards
    const path = trace.traceAddress.join('.');
    const failed = failedByTx.get(txHash) ?? [];
    failedByTx.set(txHash, failed);
    if (trace.error) failed.push(path);
    const reverted = failed.some((prefix) => prefix === '' || path === prefix || path.startsWith(`${prefix}.`));
    const movement = parityMovement(trace);
    if (!movement || reverted || trace.traceAddress.length === 0) continue;
    const position = positions.get(txHash) ?? 0;
    positions.set(txHash, position + 1);
    transfers.push({ txHash, position, ...movement });
  }
  return transfers;
}

function parityMovement(trace: ParityTrace): { from: Hex; to: Hex; value: bigint } | undefined {
  if (trace.type === 'call') {
    const { callType, from, to, value } = trace.action;
    if (callType !== 'call' || !from || !to || !value || BigInt(value) === 0n) return undefined;
    return { from: getAddress(from), to: getAddress(to), value: BigInt(value) };
  }
  if (trace.type === 'suicide') {
    const { address, refundAddress, balance } = trace.action;
    if (!address || !refundAddress || !balance || BigInt(balance) === 0n) return undefined;
    return { from: getAddress(address), to: getAddress(refundAddress), value: BigInt(balance) };
  }
  return undefined;
}

// ---- Geth call traces (debug_traceBlockByHash, callTracer) ----

export interface CallFrame {
  type: string;
  from: Hex;
  to?: Hex;
  value?: Hex;
  error?: string;
  calls?: CallFrame[];
}

export interface CallTraceResult {
  txHash?: Hex;
  result?: CallFrame;
  error?: string;
}

function debugTraceBlock(client: PublicClient, hash: Hex): Promise<CallTraceResult[]> {
  return client.request({
    method: 'debug_traceBlockByHash' as never,
    params: [hash, { tracer: 'callTracer' }] as never,
  }) as Promise<CallTraceResult[]>;
}

export function fromCallTraces(results: readonly CallTraceResult[]): InternalNativeTransfer[] {
  const transfers: InternalNativeTransfer[] = [];
  for (const { txHash, result } of results) {
    if (!txHash || !result || result.error) continue;
    let position = 0;
    // Depth-first, in execution order, skipping reverted subtrees (the top-level frame is the transaction itself).
    const visit = (frame: CallFrame, depth: number) => {
      if (frame.error) return;
      const type = frame.type.toUpperCase();
      const value = frame.value ? BigInt(frame.value) : 0n;
      if (depth > 0 && (type === 'CALL' || type === 'SELFDESTRUCT') && frame.to && value > 0n) {
        transfers.push({ txHash, position: position++, from: getAddress(frame.from), to: getAddress(frame.to), value });
      }
      for (const child of frame.calls ?? []) visit(child, depth + 1);
    };
    visit(result, 0);
  }
  return transfers;
}
