/**
 * `status = 'pending'` / `status in ('pending', 'sending')` with the values written into the statement
 * instead of sent as parameters, for the queries that must use a partial index (`… where status =
 * 'pending'`). PostgreSQL uses a partial index only when it can prove the query's condition implies the
 * index's. postgres.js prepares statements, and after five runs PostgreSQL may switch a statement to a
 * generic plan, in which `status = $1` proves nothing: the poll then reads the whole table
 * (`npm run bench:scale` measured the webhook relay at 2 ms with 10,000 deliveries and 30 ms with a
 * million). Only for values from the code's own status lists, never for input.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';

const STATUS_LITERAL = /^[a-z_]+$/;

export function statusIs(column: AnyPgColumn, ...statuses: readonly [string, ...string[]]): SQL {
  for (const status of statuses) {
    if (!STATUS_LITERAL.test(status)) throw new Error(`statusIs: ${JSON.stringify(status)} is not a status name`);
  }
  const literals = statuses.map((status) => `'${status}'`);
  return literals.length === 1 ? sql`${column} = ${sql.raw(literals[0]!)}` : sql`${column} in (${sql.raw(literals.join(', '))})`;
}
