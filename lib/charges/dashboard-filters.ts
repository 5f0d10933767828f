/**
 * The dashboard's charge filters, as they travel in a query string: the Charges page's GET form, its
 * "Next page" link and the CSV export link all carry the same parameters, parsed here once.
 *
 *   status  a charge status                 chain  a registry chain name (POLYGON_AMOY, …)
 *   token   a token symbol, any case (POL, usdc, a custom token's)
 *   from / to  creation dates, YYYY-MM-DD, inclusive, UTC
 *   q       search, see parseChargeSearch   after  the cursor: the id of the last charge shown
 *
 * Pure (no database): the page, the export route and the tests share it.
 */
import { z } from 'zod';
import { CHAIN_NAMES, CHAINS, type ChainName } from '@/lib/chains/registry';
import { isIdOf } from '@/lib/ids';
import { LIMITS } from './schemas';
import { CHARGE_STATUSES, type ChargeStatus } from './state';

const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date (YYYY-MM-DD)')
  .refine(
    (value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value),
    'must be a real date',
  );

/** A GET form sends every field, empty ones as "": those mean "no filter". */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const dashboardChargeFiltersSchema = z
  .object({
    status: optional(z.enum(CHARGE_STATUSES, 'must be a charge status')),
    chain: optional(z.enum(CHAIN_NAMES, 'must be a supported chain')),
    token: optional(z.string().trim().min(1).max(LIMITS.symbolLength, 'must be a token symbol')),
    from: optional(isoDay),
    to: optional(isoDay),
    // Longest useful search: a metadata key, ':', and a value.
    q: optional(
      z
        .string()
        .trim()
        .max(LIMITS.metadataKeyLength + 1 + LIMITS.metadataValueLength, 'is too long'),
    ),
  })
  .refine((filters) => !filters.from || !filters.to || filters.from <= filters.to, { message: 'must not be before "from"', path: ['to'] });

export interface DashboardChargeFilters {
  status?: ChargeStatus;
  chain?: ChainName;
  token?: string;
  /** YYYY-MM-DD (UTC), inclusive. */
  from?: string;
  /** YYYY-MM-DD (UTC), inclusive. */
  to?: string;
  q?: string;
}

export type ParsedFilters = { ok: true; filters: DashboardChargeFilters; after?: string } | { ok: false; message: string; param: string };

type QueryInput = URLSearchParams | Record<string, string | string[] | undefined>;

/** Parses a query string (a page's searchParams or a route's URL). Unknown parameters are ignored. */
export function parseDashboardChargeQuery(input: QueryInput): ParsedFilters {
  const raw = toRecord(input);
  const parsed = dashboardChargeFiltersSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = issue.path.join('.');
    return { ok: false, param, message: `${param}: ${issue.message}` };
  }
  const filters = Object.fromEntries(Object.entries(parsed.data).filter(([, value]) => value !== undefined)) as DashboardChargeFilters;
  const after = raw.after?.trim();
  if (after && !isIdOf('charge', after)) return { ok: false, param: 'after', message: 'after: must be a charge id' };
  return { ok: true, filters, ...(after ? { after } : {}) };
}

/** The query string of filters (and an optional cursor), for links that keep them. */
export function dashboardChargeQueryString(filters: DashboardChargeFilters, after?: string): string {
  const params = new URLSearchParams();
  for (const key of ['status', 'chain', 'token', 'from', 'to', 'q'] as const) {
    const value = filters[key];
    if (value) params.set(key, value);
  }
  if (after) params.set('after', after);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** [created_gte, created_lt) of the from / to days (UTC). */
export function createdRange(filters: DashboardChargeFilters): { gte?: Date; lt?: Date } {
  return {
    ...(filters.from ? { gte: new Date(`${filters.from}T00:00:00Z`) } : {}),
    ...(filters.to ? { lt: new Date(new Date(`${filters.to}T00:00:00Z`).getTime() + 86_400_000) } : {}),
  };
}

/**
 * What the search box means:
 *   ch_…         exactly that charge id
 *   key:value    metadata[key] equals value exactly (the first ":" separates them), e.g. orderId:1001
 *   anything     some metadata value equals it exactly (any key)
 * Matching is exact and case-sensitive, as metadata is stored: no substring search, which could not
 * be answered without scanning the text of every charge.
 */
export type ChargeSearch =
  { kind: 'id'; id: string } | { kind: 'metadata'; key: string; value: string } | { kind: 'metadataValue'; value: string };

export function parseChargeSearch(q: string): ChargeSearch {
  const text = q.trim();
  if (isIdOf('charge', text)) return { kind: 'id', id: text };
  const colon = text.indexOf(':');
  if (colon > 0 && colon <= LIMITS.metadataKeyLength)
    return { kind: 'metadata', key: text.slice(0, colon).trim(), value: text.slice(colon + 1).trim() };
  return { kind: 'metadataValue', value: text };
}

/** The chains a mode's charges can be on: test networks in test mode, main networks in live mode. */
export function chainsOfMode(mode: 'test' | 'live'): ChainName[] {
  return CHAIN_NAMES.filter((name) => CHAINS[name].isTestnet === (mode === 'test'));
}

/** The registry's token symbols of a mode, suggested by the token filter (custom tokens are typed in). */
export function tokenSymbolsOfMode(mode: 'test' | 'live'): string[] {
  return [...new Set(chainsOfMode(mode).flatMap((name) => CHAINS[name].tokens.map((token) => token.symbol)))].sort();
}

function toRecord(input: QueryInput): Record<string, string | undefined> {
  if (input instanceof URLSearchParams) return Object.fromEntries(input.entries());
  return Object.fromEntries(Object.entries(input).map(([key, value]) => [key, Array.isArray(value) ? value[0] : value]));
}
