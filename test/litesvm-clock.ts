/**
 * Test helper: a LiteSVM ledger's transport (test/litesvm-view.ts) that also answers getSlot and
 * getBlockTime from LiteSVM's clock, as the Solana watcher and reconciliation ask a node. A slot's block
 * time is counted back from the clock at one second per slot (the ledger's rule). Every commitment sees
 * the current slot (the ledger has no forks).
 */
import type { RpcTransport } from '@solana/kit';
import type { LiteSvmLedger } from './litesvm-view';

export function withClock(ledger: LiteSvmLedger): RpcTransport {
  const transport = async <TResponse>(request: Parameters<RpcTransport>[0]): Promise<TResponse> => {
    const { id, method, params } = request.payload as { id: string; method: string; params: unknown[] };
    const clock = ledger.svm.getClock();
    if (method === 'getSlot') return { jsonrpc: '2.0', id, result: Number(clock.slot) } as TResponse;
    if (method === 'getBlockTime') {
      const slot = BigInt(params[0] as number);
      if (slot > clock.slot)
        return { jsonrpc: '2.0', id, error: { code: -32004, message: `Block not available for slot ${slot}` } } as TResponse;
      return { jsonrpc: '2.0', id, result: Number(clock.unixTimestamp - (clock.slot - slot)) } as TResponse;
    }
    return ledger.transport(request);
  };
  return transport as RpcTransport;
}

/** Moves the ledger's clock `seconds` ahead (one slot a second), as a cluster does while nothing is sent. */
export function advanceClock(ledger: LiteSvmLedger, seconds: number): void {
  const clock = ledger.svm.getClock();
  clock.slot += BigInt(seconds);
  clock.unixTimestamp += BigInt(seconds);
  ledger.svm.setClock(clock);
}

/** The block time of the ledger's current slot. */
export function ledgerNow(ledger: LiteSvmLedger): Date {
  return new Date(Number(ledger.svm.getClock().unixTimestamp) * 1000);
}
