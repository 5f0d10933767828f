/**
 * GET /api/metrics: 404 without METRICS_TOKEN, 401 with a wrong token, the Prometheus text with the right
 * one — charges created by outcome, request durations, webhook deliveries, sweep backlog, queue depth,
 * reconciliation discrepancies, and the process's default series.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { metrics, observeWebhookDelivery } from '@/lib/metrics/metrics';
import { getDb } from '@/lib/db/client';
import { scannerCursors } from '@/lib/db/schema';
import { callRoute, newMerchant, testCharge } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { POST as createChargeRoute } from '../createCharge/route';
import { GET } from './route';

const TOKEN = 'metrics-token-0123456789';

async function scrape(authorization?: string): Promise<{ status: number; text: string }> {
  const response = await GET(new Request('http://localhost:3999/api/metrics', { headers: authorization ? { authorization } : {} }));
  return { status: response.status, text: await response.text() };
}

function withToken(): void {
  process.env.METRICS_TOKEN = TOKEN;
  resetEnvCache();
}

beforeAll(async () => {
  // Its own database: the watcher cursor below must not move another file's charge watcher.
  await switchToPrivateDatabase('metrics');
  await getDb().insert(scannerCursors).values({ chain: 'POLYGON', consumer: 'charges', lastBlock: 0n, lastBlockHash: '0x00' });
});

afterEach(() => {
  delete process.env.METRICS_TOKEN;
  resetEnvCache();
});

describe('GET /api/metrics', () => {
  it('is not there (404) without METRICS_TOKEN', async () => {
    expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(404);
  });

  it('refuses a missing or wrong token with 401', async () => {
    withToken();
    expect((await scrape()).status).toBe(401);
    expect((await scrape('Bearer wrong-token-0123456789')).status).toBe(401);
    expect((await scrape(TOKEN)).status).toBe(401); // the scheme is part of it
  });

  it('counts charges created by outcome', async () => {
    withToken();
    const merchant = await newMerchant();
    const created = await callRoute(createChargeRoute, { apiKey: merchant.testKey, body: testCharge() });
    expect(created.json.error).toBeNull();
    const refused = await callRoute(createChargeRoute, { apiKey: merchant.testKey, body: testCharge({ chain: 'NOPE' }) });
    expect(refused.json.error?.code).toBe('unsupported_chain');
    const { status, text } = await scrape(`Bearer ${TOKEN}`);
    expect(status).toBe(200);
    expect(text).toMatch(/^chargeport_charges_created_total\{outcome="created"\} [1-9]/m);
    expect(text).toMatch(/^chargeport_charges_created_total\{outcome="unsupported_chain"\} [1-9]/m);
  });

  it('serves webhook deliveries, reconciliation, sweep backlog, queue depth and request durations', async () => {
    withToken();
    observeWebhookDelivery('succeeded', 120);
    observeWebhookDelivery('failed', 3_000);
    metrics().reconciliationDiscrepancies.set({ chain: 'POLYGON' }, 2);
    metrics().httpRequestDuration.observe({ method: 'GET', route: '/api/health', status: '200' }, 0.01);
    const { text } = await scrape(`Bearer ${TOKEN}`);
    expect(text).toMatch(/^chargeport_webhook_deliveries_total\{outcome="succeeded"\} [1-9]/m);
    expect(text).toMatch(/^chargeport_webhook_delivery_duration_seconds_bucket\{le="5",outcome="failed"\} 1/m);
    expect(text).toMatch(/^chargeport_reconciliation_discrepancies\{chain="POLYGON"\} 2$/m);
    expect(text).toMatch(/^chargeport_sweep_backlog\{state="due"\} \d+$/m);
    expect(text).toMatch(/^chargeport_sweep_backlog\{state="stuck"\} \d+$/m);
    expect(text).toMatch(/^chargeport_watcher_lag_blocks\{chain="POLYGON"\} \d+$/m);
    expect(text).toMatch(/^chargeport_http_request_duration_seconds_count\{method="GET",route="\/api\/health",status="200"\} 1$/m);
    expect(text).toContain('# TYPE chargeport_queue_depth gauge');
    expect(text).toContain('# TYPE chargeport_gas_tank_balance gauge');
  });

  it("serves the process's default series beside Chargeport's (CPU, memory, heap, event loop, GC)", async () => {
    withToken();
    const { text } = await scrape(`Bearer ${TOKEN}`);
    expect(text).toMatch(/^process_cpu_user_seconds_total [0-9.e+-]+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes [1-9]/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes [1-9]/m);
    expect(text).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
    expect(text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
  });
});
