/**
 * Traces (lib/tracing.ts) with an in-memory tracer provider, on real PostgreSQL: an API request served over
 * HTTP is a SERVER span carrying the request id its response quotes, its queries are children in the same
 * trace; a scheduled job is a root span with its queries; transactions and failures are traced; and with no
 * provider registered nothing is recorded.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as listCharges } from '@/app/api/charges/route';
import { getDb } from '@/lib/db/client';
import { recordRequests } from '@/lib/http/record-requests';
import { startScheduler, stopScheduler } from '@/lib/jobs/scheduler';
import { newMerchant } from '@/test/fixtures';
import { RecordingTracerProvider, type RecordedSpan } from '@/test/recording-tracer-provider';
import { installContextManager, traced } from './tracing';

const provider = new RecordingTracerProvider();
let server: Server;
let base: string;

beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  expect(installContextManager()).toBe(true);
  recordRequests();
  // The API route as Next.js would call it, behind a plain Node server (the diagnostics channels are Node's).
  server = createServer((request, response) => {
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
    void listCharges(new Request(`http://localhost${request.url}`, { headers }), { params: Promise.resolve({}) }).then(async (answer) => {
      // As Next.js does: setHeader, so the response's headers can be read back at its end.
      response.setHeader('x-request-id', answer.headers.get('x-request-id') ?? '');
      response.writeHead(answer.status).end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  trace.disable();
  context.disable();
});

const childrenOf = (parent: RecordedSpan) => provider.spans.filter((span) => span.parentSpanId === parent.spanId);

async function until<T>(find: () => T | undefined): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const found = find();
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('not found in time');
}

describe('traces', () => {
  it('an API request is a SERVER span named by its route, with the request id the response quotes; its queries are its children', async () => {
    const merchant = await newMerchant();
    const response = await fetch(`${base}/api/charges?limit=5`, { headers: { 'x-api-key': merchant.testKey } });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const span = await until(() => provider.spans.find((s) => s.attributes['chargeport.request_id'] === requestId && s.ended));
    expect(span).toMatchObject({
      name: 'GET /api/charges',
      kind: SpanKind.SERVER,
      parentSpanId: undefined,
      attributes: {
        'http.request.method': 'GET',
        'http.route': '/api/charges',
        'http.response.status_code': 200,
        'chargeport.merchant_id': merchant.id,
      },
    });
    const queries = childrenOf(span).filter((child) => child.kind === SpanKind.CLIENT);
    expect(queries.length).toBeGreaterThan(0);
    expect(queries[0]).toMatchObject({ traceId: span.traceId, ended: true, attributes: { 'db.system.name': 'postgresql' } });
    expect(queries.map((query) => query.name)).toContain('SELECT');
    // Parameterised text only: the key never reaches a span.
    expect(JSON.stringify(provider.spans)).not.toContain(merchant.testKey);
  });

  it('queries in transactions and savepoints are spans; a failed one is marked failed and ended', async () => {
    const outer = await traced('outer', {}, async (span) => {
      await getDb().transaction(async (tx) => {
        await tx.execute(sql`select 1 as in_transaction`);
        await tx.transaction((savepoint) => savepoint.execute(sql`select 2 as in_savepoint`));
      });
      await expect(getDb().execute(sql`select * from no_such_table_for_tracing`)).rejects.toThrow();
      return span.spanContext().spanId;
    });
    const traceOf = provider.spans.find((span) => span.spanId === outer)!;
    const texts = provider.spans.filter((span) => span.traceId === traceOf.traceId).map((span) => span.attributes['db.query.text']);
    expect(texts).toEqual(expect.arrayContaining(['select 1 as in_transaction', 'select 2 as in_savepoint']));
    const failed = provider.spans.find((span) => span.attributes['db.query.text'] === 'select * from no_such_table_for_tracing')!;
    expect(failed).toMatchObject({ parentSpanId: outer, ended: true, status: { code: SpanStatusCode.ERROR } });
    expect(failed.events).toContain('exception');
  });

  it('a scheduled job run is a root span, and its queries are its children', async () => {
    startScheduler([{ name: 'tracing-probe', everyMs: 60_000, runAtStart: true, run: () => getDb().execute(sql`select 3 as from_job`) }]);
    try {
      const job = await until(() => provider.spans.find((span) => span.name === 'job tracing-probe' && span.ended));
      expect(job).toMatchObject({ parentSpanId: undefined, attributes: { 'chargeport.job': 'tracing-probe' } });
      expect(childrenOf(job).map((span) => span.attributes['db.query.text'])).toEqual(['select 3 as from_job']);
    } finally {
      stopScheduler();
    }
  });

  it('with no tracer provider (OTLP not configured) nothing is recorded', async () => {
    trace.disable();
    const before = provider.spans.length;
    await traced('not recorded', {}, () => getDb().execute(sql`select 4`));
    await fetch(`${base}/api/charges`);
    expect(provider.spans.length).toBe(before);
  });
});
