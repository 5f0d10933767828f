/**
 * Prometheus metrics of this process (prom-client). Counters and histograms are recorded where things
 * happen (requests: lib/http/record-requests.ts; charges: createCharge; payments: the watchers; webhook
 * deliveries: attemptDelivery; reconciliation: reconcileAndReport). Each process has its own: scrape
 * every web instance at /api/metrics and every worker at WORKER_METRICS_PORT. Gauges read from
 * PostgreSQL and the chains (queue depth, watcher lag, sweep backlog, gas tank) are refreshed at scrape
 * time by refreshSharedGauges() (lib/admin/metrics-response.ts). prom-client's default process series
 * (`process_*`, `nodejs_*`: CPU, memory, heap, event-loop lag, GC) come with them.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

function createMetrics() {
  const registry = new Registry();
  // Node's process series beside ours: CPU, resident memory, heap, event-loop lag, GC, handles, file descriptors.
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'chargeport_http_request_duration_seconds',
      help: 'HTTP request durations by method, route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    chargesCreated: new Counter({
      name: 'chargeport_charges_created_total',
      help: 'createCharge calls by outcome: created, or the error code',
      labelNames: ['outcome'] as const,
      registers,
    }),
    paymentsSeen: new Counter({
      name: 'chargeport_payments_seen_total',
      help: 'Payments the chain watchers recorded, per chain',
      labelNames: ['chain'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'chargeport_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome (succeeded, failed)',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookDeliveryDuration: new Histogram({
      name: 'chargeport_webhook_delivery_duration_seconds',
      help: 'Webhook delivery attempt latency by outcome',
      labelNames: ['outcome'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    reconciliationDiscrepancies: new Gauge({
      name: 'chargeport_reconciliation_discrepancies',
      help: 'Differences between the ledger and the chains found by the last reconciliation, per chain',
      labelNames: ['chain'] as const,
      registers,
    }),
    queueDepth: new Gauge({
      name: 'chargeport_queue_depth',
      help: 'pg-boss jobs waiting (state: queued = all waiting, ready = due now)',
      labelNames: ['state'] as const,
      registers,
    }),
    watcherLag: new Gauge({
      name: 'chargeport_watcher_lag_blocks',
      help: "Blocks between a chain's head and its charge watcher's cursor",
      labelNames: ['chain'] as const,
      registers,
    }),
    sweepBacklog: new Gauge({
      name: 'chargeport_sweep_backlog',
      help: 'Charges whose deposit address waits for a sweep (state: due = due now, stuck = attempts ran out)',
      labelNames: ['state'] as const,
      registers,
    }),
    gasTankBalance: new Gauge({
      name: 'chargeport_gas_tank_balance',
      help: "The gas tank's native balance per chain, in the chain's coin",
      labelNames: ['chain'] as const,
      registers,
    }),
  };
}

type Metrics = ReturnType<typeof createMetrics>;
const state = globalThis as unknown as { __chargeportMetrics?: Metrics };

/** One set per process (kept on globalThis: Next.js bundles may load this module more than once). */
export function metrics(): Metrics {
  state.__chargeportMetrics ??= createMetrics();
  return state.__chargeportMetrics;
}

export function observeWebhookDelivery(outcome: 'succeeded' | 'failed', durationMs: number): void {
  metrics().webhookDeliveries.inc({ outcome });
  metrics().webhookDeliveryDuration.observe({ outcome }, durationMs / 1000);
}
