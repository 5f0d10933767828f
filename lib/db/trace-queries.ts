/**
 * A CLIENT span per query drizzle sends (lib/tracing.ts), in transactions and savepoints too: named after the
 * operation (`SELECT`), with the parameterised text (`$1`, never the values). postgres.js has no tracing hook,
 * so the client's `unsafe` (what drizzle calls), `begin` and `savepoint` are wrapped; a query's span ends
 * when postgres.js settles it (its `resolve`/`reject`, pinned version: lib/tracing.test.ts fails if they go).
 * While tracing is off the span is the API's no-op one and the query is returned untouched.
 */
import { SpanKind } from '@opentelemetry/api';
import type { Sql } from 'postgres';
import { failSpan, tracer } from '@/lib/tracing';

const QUERY_TEXT_LIMIT = 2_000;

interface SettlingQuery {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

function traceQuery<Q>(query: Q, text: string): Q {
  const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
  const span = tracer().startSpan(operation, {
    kind: SpanKind.CLIENT,
    attributes: { 'db.system.name': 'postgresql', 'db.operation.name': operation, 'db.query.text': text.slice(0, QUERY_TEXT_LIMIT) },
  });
  if (!span.isRecording()) return query;
  const settling = query as unknown as SettlingQuery;
  const { resolve, reject } = settling;
  settling.resolve = (value) => {
    span.end();
    resolve(value);
  };
  settling.reject = (error) => {
    failSpan(span, error);
    span.end();
    reject(error);
  };
  return query;
}

/** Wraps `sql` (the pool, a transaction or a savepoint) in place, and returns it. */
export function traceQueries<S extends Sql>(sql: S): S {
  const unsafe = sql.unsafe.bind(sql);
  sql.unsafe = ((text: string, ...rest: unknown[]) =>
    traceQuery((unsafe as (text: string, ...rest: unknown[]) => unknown)(text, ...rest), text)) as S['unsafe'];
  for (const method of ['begin', 'savepoint'] as const) {
    const original = (sql as unknown as Record<string, ((...args: unknown[]) => unknown) | undefined>)[method];
    if (typeof original !== 'function') continue;
    (sql as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const callback = args.pop() as (inner: Sql) => unknown;
      return original.call(sql, ...args, (inner: Sql) => callback(traceQueries(inner)));
    };
  }
  return sql;
}
