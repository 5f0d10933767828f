/**
 * Named places where the fault-injection suite (`npm run test:faults`) kills the process with SIGKILL,
 * to prove that a crash between two steps of moving money loses nothing and repeats nothing: the engine's
 * steps (test/faults/faults.test.ts; on Solana test/faults/solana-faults.test.ts) and the paths around it (test/faults/crash-outside-engine.test.ts). Inert unless
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
  | 'transfer.settling'
  /** Outside the engine: a watcher's poll that settled charges committed (their outbox events too); nothing has relayed them. */
  | 'charge.settled'
  /** The outbox relay wrote an event's deliveries and stamped it relayed, but has not committed. */
  | 'webhook.relaying'
  /** A charge's payment from a delivered on-ramp order is recorded (transfer, order link, events), not committed. */
  | 'onramp.order_payment_recording'
  /** A provider webhook's receipt and order update are written, not committed. */
  | 'onramp.webhook_applying'
  /** A fulfilment's contract call is recorded and its row moved to `submitted`, not committed. */
  | 'fulfilment.recording';

export function crashPoint(point: CrashPoint): void {
  if (process.env.NODE_ENV === 'production') return;
  if (process.env.CHARGEPORT_CRASH_AT === point) process.kill(process.pid, 'SIGKILL');
}
