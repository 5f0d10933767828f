/**
 * OpenTelemetry traces, through @opentelemetry/api: a SERVER span per HTTP request with the API request id
 * (lib/http/record-requests.ts), a CLIENT span per database query (lib/db/client.ts) and a span per background
 * job run (lib/jobs/scheduler.ts, webhook delivery attempts). Until a tracer provider is registered the API's
 * tracer is a no-op, so with no exporter configured a span costs a function call and nothing is recorded.
 *
 * RequestContextManager is the API's context manager over AsyncLocalStorage, plus `enter`: the request's span
 * is entered where the request starts (a diagnostics channel, before Next.js sees the request), so Next.js's
 * own spans, queries and anything else traced while serving it are its children.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type ContextManager,
  type Span,
} from '@opentelemetry/api';

const TRACER_NAME = 'chargeport';

export function tracer() {
  return trace.getTracer(TRACER_NAME);
}

/** Marks the span failed: status ERROR and the error's class (an exception event only carries the name). */
export function failSpan(span: Span, error: unknown): void {
  if (!span.isRecording()) return;
  // The name only: messages can quote an RPC URL with its key, or a query's values.
  const name = error instanceof Error ? error.name : typeof error;
  span.setStatus({ code: SpanStatusCode.ERROR, message: name });
  span.addEvent('exception', { 'exception.type': name });
}

/** Runs `fn` in a span that is active for everything it calls; a thrown error marks the span failed. */
export function traced<T>(
  name: string,
  options: { attributes?: Attributes; kind?: SpanKind; root?: boolean },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const spanOptions = { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, root: options.root };
  return tracer().startActiveSpan(name, spanOptions, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** AsyncLocalStorage-backed context, with `enter` for a context that starts in a synchronous callback. */
class RequestContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.apply(thisArg, args));
  }

  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const fn = target as (...args: unknown[]) => unknown;
    return ((...args: unknown[]) => this.with(ctx, () => fn(...args))) as T;
  }

  /** The rest of the current synchronous run, and what it starts, runs in `ctx`. */
  enter(ctx: Context): void {
    this.storage.enterWith(ctx);
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}

const state = globalThis as unknown as { __chargeportContextManager?: RequestContextManager };

/**
 * Registers the request-aware context manager as the API's, once per process: by whatever starts a tracer
 * provider (tracing on). False when another context manager was registered first; requests are then not entered.
 */
export function installContextManager(): boolean {
  if (state.__chargeportContextManager) return true;
  const manager = new RequestContextManager();
  if (!context.setGlobalContextManager(manager)) return false;
  state.__chargeportContextManager = manager;
  return true;
}

/** Makes `span` the active span for the rest of this synchronous run (a request's start). No-op before installContextManager. */
export function enterSpan(span: Span): void {
  state.__chargeportContextManager?.enter(trace.setSpan(context.active(), span));
}
