/** The in-process wake-up of the delivery worker (delivery-worker.ts), for the relay and the recording. */
const globalForWake = globalThis as unknown as { __chargeportDeliveryWake?: () => void };

/** Set by the delivery worker of this process while it runs. */
export function setDeliveryWorkerWake(wake: (() => void) | undefined): void {
  globalForWake.__chargeportDeliveryWake = wake;
}

/**
 * Tells this process's delivery worker that jobs were enqueued and committed, so it fetches now
 * instead of at its next poll. Call after the commit: before it, the fetch would find nothing.
 */
export function wakeDeliveryWorker(): void {
  globalForWake.__chargeportDeliveryWake?.();
}
