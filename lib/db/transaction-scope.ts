/**
 * Knows whether the running code is inside a database transaction, so that chain clients can refuse to
 * make RPC calls there: a transaction that waits on a remote node holds its row and advisory locks for as
 * long as the node takes (seconds on a slow provider), blocks every poller and payer behind it, and is
 * cut by idle_in_transaction_session_timeout. The rule is "read the chain first, then open a short
 * transaction that writes" (see lib/transactions/prepare-transfer.ts).
 *
 * `getDb().transaction(…)` runs its callback in this scope (lib/db/client.ts); the chain clients
 * (lib/chains/clients.ts, the Solana RPC) call `assertNoTransactionOpen` before each request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<{ readonly isInTransaction: true }>();
const INSIDE = { isInTransaction: true } as const;

export function runInTransactionScope<T>(callback: () => T): T {
  return scope.run(INSIDE, callback);
}

function isInsideTransaction(): boolean {
  return scope.getStore()?.isInTransaction === true;
}

export class RpcInsideTransactionError extends Error {
  constructor(what: string) {
    super(`${what} was called while a database transaction is open: read from the chain before the transaction, then write in it`);
    this.name = 'RpcInsideTransactionError';
  }
}

const reported = new Set<string>();

/**
 * Fails (development and tests) or reports once per call kind (production: a missed case must not stop
 * payments) when a chain request is made inside a transaction.
 */
export function assertNoTransactionOpen(what: string, report: (error: Error) => void): void {
  if (!isInsideTransaction()) return;
  const error = new RpcInsideTransactionError(what);
  if (process.env.NODE_ENV !== 'production') throw error;
  if (reported.has(what)) return;
  reported.add(what);
  report(error);
}
