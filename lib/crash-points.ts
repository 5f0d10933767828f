/**
 * Named places where the fault-injection suite (`npm run test:faults`) kills the process with SIGKILL,
 * to prove that a crash between two steps of moving money loses nothing and repeats nothing. Inert unless
 * `CHARGEPORT_CRASH_AT` names the point, and always inert in production.
 */
export type CrashPoint =
  /** The transfer's row (signed bytes, nonce) is committed; nothing has left the server. */
  | 'transfer.recorded'
  /** A node accepted the bytes; the row does not say `broadcast` yet. */
  | 'transfer.sent'
  /** A replacement (fee bump or cancel) is recorded; it has not been sent. */
  | 'transfer.replacement_recorded'
  /** The final status and its purpose's hook are written but not committed. */
  | 'transfer.settling';

export function crashPoint(point: CrashPoint): void {
  if (process.env.NODE_ENV === 'production') return;
  if (process.env.CHARGEPORT_CRASH_AT === point) process.kill(process.pid, 'SIGKILL');
}
