import { numeric, timestamp } from 'drizzle-orm/pg-core';

/** created_at / updated_at shared by every table that changes. */
export const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' })
    .notNull()
    .defaultNow()
    .$onUpdate(() => new Date()),
};

/** A token amount in base units: NUMERIC(78,0) holds every uint256; read and written as bigint. */
export const baseUnits = (name: string) => numeric(name, { precision: 78, scale: 0, mode: 'bigint' });
