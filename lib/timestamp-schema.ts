import { z } from 'zod';

/** An ISO 8601 timestamp in UTC, as every response writes dates (`Date.toISOString()`). */
export const timestampSchema = z.iso.datetime().meta({ example: '2026-03-01T12:00:00.000Z' });
