/**
 * Test helper: a LiteSVM ledger's transport (test/litesvm-view.ts) that also answers getSlot and
 * getBlockTime from LiteSVM's clock, as the Solana watcher and reconciliation ask a node. Block time of a
 * slot follows the ledger's rule (one second per slot from its genesis time). Every commitment
 * sees the current slot (the ledger has no forks).
 */
import type { RpcTransport } from '@solana/kit';
import type { LiteSvmLedger } from './litesvm-view';

/** test/litesvm-view.ts's rule: slot s is stamped 2026-01-01T00:00:00Z + s seconds. */
const GENESIS_UNIX_TIME = 1_767_225_600n;

export function withClock(ledger: LiteSvmLedger): RpcTransport {
  const transport = async <TResponse>(request: Parameters<RpcTransport>[0]): Promise<TResponse> => {
    const { id, method, params } = request.payload as { id: string; method: string; params: unknown[] };
    const clock = ledger.svm.getClock();
    if (method === 'getSlot') return { jsonrpc: '2.0', id, result: Number(clock.slot) } as TResponse;
    if (method === 'getBlockTime') {
      const slot = BigInt(params[0] as number);
      if (slot > clock.slot)
        return { jsonrpc: '2.0', id, error: { code: -32004, message: `Block not available for slot ${slot}` } } as TResponse;
      return { jsonrpc: '2.0', id, result: Number(GENESIS_UNIX_TIME + slot) } as TResponse;
    }
    return ledger.transport(request);
  };
  return transport as RpcTransport;
}

/** Moves the ledger's clock `seconds` ahead (one slot a second), as a cluster does while nothing is sent. */
export function advanceClock(ledger: LiteSvmLedger, seconds: number): void {
  const clock = ledger.svm.getClock();
  clock.slot += BigInt(seconds);
  clock.unixTimestamp = GENESIS_UNIX_TIME + clock.slot;
  ledger.svm.setClock(clock);
}

/** The block time of the ledger's current slot. */
export function ledgerNow(ledger: LiteSvmLedger): Date {
  return new Date(Number(GENESIS_UNIX_TIME + ledger.svm.getClock().slot) * 1000);
}
