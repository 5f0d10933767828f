/**
 * One structured log line per HTTP request (lib/log.ts, pino): method, route, status, duration, request id and,
 * for API calls, the merchant — and the same observation in chargeport_http_request_duration_seconds.
 *
 * Installed once per process (instrumentation.ts) on Node's `http.server.request.start` and
 * `http.server.response.finish` diagnostics channels, which see every request Next.js serves. The route
 * is the path with ids replaced (`/api/charges/:id`), never the query string, so neither a token in a URL
 * nor an unbounded label set reaches the log or the metrics. The request's context lives in an
 * AsyncLocalStorage entered at request start, so withApiKey can name the merchant (noteRequestMerchant).
 * Each request is also a SERVER span (lib/tracing.ts) named `METHOD route`, with the status, the merchant and
 * `chargeport.request_id`: the x-request-id the response carries (the API's), so a support quote finds its trace.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import diagnosticsChannel from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import { log, scrubText } from '@/lib/log';
import { enterSpan, tracer } from '@/lib/tracing';
import { metrics } from '@/lib/metrics/metrics';

interface RequestContext {
  startedAt: bigint;
  requestId: string;
  merchantId?: string;
  /** The request's SERVER span (a no-op one while tracing is off). */
  span: Span;
}

const state = globalThis as unknown as {
  __chargeportRequestLog?: { storage: AsyncLocalStorage<RequestContext>; contexts: WeakMap<IncomingMessage, RequestContext> };
};

/** Installs the listeners (idempotent). Node runtime only. */
export function recordRequests(): void {
  if (state.__chargeportRequestLog) return;
  const storage = new AsyncLocalStorage<RequestContext>();
  const contexts = new WeakMap<IncomingMessage, RequestContext>();
  state.__chargeportRequestLog = { storage, contexts };
  diagnosticsChannel.subscribe('http.server.request.start', (message) => {
    const { request } = message as { request: IncomingMessage };
    const incoming = request.headers['x-request-id'];
    const method = request.method ?? 'GET';
    // A caller's W3C traceparent continues its trace (once a propagator is registered; none while tracing is off).
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const context: RequestContext = {
      startedAt: process.hrtime.bigint(),
      requestId: (typeof incoming === 'string' && incoming.slice(0, 64)) || randomUUID(),
      span: tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } }, parent),
    };
    contexts.set(request, context);
    // Runs synchronously before the server emits 'request': what handles it continues in this context,
    // and under this span (Next.js's spans, queries, outgoing calls).
    storage.enterWith(context);
    enterSpan(context.span);
  });
  diagnosticsChannel.subscribe('http.server.response.finish', (message) => {
    const { request, response } = message as { request: IncomingMessage; response: ServerResponse };
    const context = contexts.get(request);
    if (!context) return;
    contexts.delete(request);
    const seconds = Number(process.hrtime.bigint() - context.startedAt) / 1e9;
    const method = request.method ?? 'GET';
    const route = routeOf(request.url ?? '/');
    const status = response.statusCode;
    metrics().httpRequestDuration.observe({ method, route, status: String(status) }, seconds);
    const answered = response.getHeader('x-request-id');
    const requestId = typeof answered === 'string' ? answered : context.requestId;
    endRequestSpan(context, { method, route, status, requestId });
    // Info: LOG_LEVEL=warn or error leaves request lines out.
    log.info('request', {
      method,
      route,
      status,
      durationMs: Math.round(seconds * 10_000) / 10,
      requestId,
      ...(context.merchantId ? { merchantId: context.merchantId } : {}),
    });
  });
}

/** The route (ids masked, no query string), the status and the request id the response carries (the API's, or ours). */
function endRequestSpan(context: RequestContext, fields: { method: string; route: string; status: number; requestId: string }): void {
  const { span } = context;
  if (!span.isRecording()) return;
  span.updateName(`${fields.method} ${fields.route}`);
  span.setAttributes({
    'http.route': fields.route,
    'http.response.status_code': fields.status,
    'chargeport.request_id': fields.requestId,
    ...(context.merchantId ? { 'chargeport.merchant_id': context.merchantId } : {}),
  });
  if (fields.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Called by withApiKey once the key is known: the request's log line names its merchant. */
export function noteRequestMerchant(merchantId: string): void {
  const context = state.__chargeportRequestLog?.storage.getStore();
  if (context) context.merchantId = merchantId;
}

/** Prefixed ids (ch_…, mer_…), UUIDs, hex hashes, numbers and addresses become `:id`; static assets one label. */
export function routeOf(url: string): string {
  const path = (url.split(/[?#]/, 1)[0] ?? '/') || '/';
  if (path.startsWith('/_next/')) return '/_next/*';
  const segments = path
    .split('/')
    .map((segment) =>
      /^[a-z]{2,8}_[0-9A-Za-z_]{6,}$/.test(segment) ||
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(segment) ||
      /^(0x)?[0-9a-fA-F]{16,}$/.test(segment) ||
      /^\d+$/.test(segment) ||
      /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(segment) ||
      segment.length > 48
        ? ':id'
        : segment,
    );
  return scrubText(segments.join('/'));
}
