/**
 * An in-memory tracer provider for tests: the spans @opentelemetry/api hands it, with their parent, attributes,
 * status and whether they ended. The OpenTelemetry SDK (and its InMemorySpanExporter) is not a dependency yet;
 * this implements the API's Tracer and Span interfaces and nothing more.
 */
import { randomBytes } from 'node:crypto';
import {
  context,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanOptions,
  type SpanStatus,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

export interface RecordedSpan {
  name: string;
  kind?: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Attributes;
  status?: SpanStatus;
  events: string[];
  ended: boolean;
}

class RecordingSpan implements Span {
  constructor(
    private readonly context: SpanContext,
    readonly record: RecordedSpan,
  ) {}
  spanContext(): SpanContext {
    return this.context;
  }
  setAttribute(key: string, value: AttributeValue): this {
    this.record.attributes[key] = value;
    return this;
  }
  setAttributes(attributes: Attributes): this {
    Object.assign(this.record.attributes, attributes);
    return this;
  }
  addEvent(name: string): this {
    this.record.events.push(name);
    return this;
  }
  addLink(): this {
    return this;
  }
  addLinks(): this {
    return this;
  }
  setStatus(status: SpanStatus): this {
    this.record.status = status;
    return this;
  }
  updateName(name: string): this {
    this.record.name = name;
    return this;
  }
  end(): void {
    this.record.ended = true;
  }
  isRecording(): boolean {
    return !this.record.ended;
  }
  recordException(): void {
    this.record.events.push('exception');
  }
}

export class RecordingTracerProvider implements TracerProvider {
  readonly spans: RecordedSpan[] = [];

  getTracer(): Tracer {
    const startSpan = (name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span => {
      const parent = options.root ? undefined : trace.getSpanContext(ctx);
      const spanContext: SpanContext = {
        traceId: parent?.traceId ?? randomBytes(16).toString('hex'),
        spanId: randomBytes(8).toString('hex'),
        traceFlags: TraceFlags.SAMPLED,
      };
      const record: RecordedSpan = {
        name,
        kind: options.kind,
        traceId: spanContext.traceId,
        spanId: spanContext.spanId,
        parentSpanId: parent?.spanId,
        attributes: { ...options.attributes },
        events: [],
        ended: false,
      };
      this.spans.push(record);
      return new RecordingSpan(spanContext, record);
    };
    function startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
      const fn = rest.pop() as F;
      const [options, ctx = context.active()] = rest as [SpanOptions | undefined, Context | undefined];
      const span = startSpan(name, options, ctx);
      return context.with(trace.setSpan(ctx, span), () => fn(span)) as ReturnType<F>;
    }
    return { startSpan, startActiveSpan };
  }
}
