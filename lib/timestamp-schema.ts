import { z } from 'zod';

/** An ISO 8601 timestamp in UTC, as every response writes dates (`Date.toISOString()`). */
export const timestampSchema = z.iso.datetime().meta({ example: '2026-03-01T12:00:00.000Z' });

/** 2026-01-31, or 2026-01-31T12:00, :00 and fractions optional, then Z or an offset (+02:00): no local times. */
const QUERY_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/;

/** Whether year-month-day names a day of the calendar (not 2026-02-31, which Date would roll into March). */
function isCalendarDay(text: string): boolean {
  const [, year, month, day] = QUERY_TIME.exec(text)!.map(Number);
  const date = new Date(Date.UTC(year!, month! - 1, day!));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month! - 1 && date.getUTCDate() === day;
}

/**
 * A time bound in a query string (`created_gte`, `created_lt`): an ISO 8601 date-time with Z or its offset,
 * or a date (midnight UTC). Anything else is refused rather than guessed: `Date` alone reads `1` as
 * 2001-01-01, "March 1, 2026" in the server's time zone and 2026-02-31 as March 3.
 */
export const queryTimestampSchema = z
  .string()
  .refine((text) => QUERY_TIME.test(text) && isCalendarDay(text), {
    message: 'must be an ISO 8601 date-time with Z or an offset (such as 2026-01-31T12:00:00Z) or a date (2026-01-31)',
  })
  .transform((text) => new Date(text));
