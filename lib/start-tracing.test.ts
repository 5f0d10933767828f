/**
 * Tracing on: with OTEL_EXPORTER_OTLP_ENDPOINT set, spans reach an OTLP/HTTP collector (here one on
 * loopback) at /v1/traces, with the service name; unset, nothing is registered.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { resetEnvCache } from './env';
import { startTracing } from './start-tracing';
import { traced } from './tracing';

const received: { path: string; body: string }[] = [];
const collector = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ path: request.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

afterAll(() => collector.close());

describe('startTracing', () => {
  it('registers nothing without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    resetEnvCache();
    expect(startTracing('web')).toBeUndefined();
  });

  it('exports spans over OTLP/HTTP to the configured collector', async () => {
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    process.env.OTEL_SERVICE_NAME = 'chargeport-test';
    resetEnvCache();
    const stop = startTracing('worker');
    expect(stop).toBeDefined();
    await traced('exported-span', { attributes: { 'chargeport.request_id': 'req_test' } }, async () => {});
    await stop!();
    const traces = received.filter((request) => request.path === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const body = traces.map((request) => request.body).join('\n');
    expect(body).toContain('exported-span');
    expect(body).toContain('chargeport-test');
    expect(body).toContain('req_test');
  });
});
