import Link from 'next/link';
import { CHAINS } from '@/lib/chains/registry';
import { chainsOfMode, tokenSymbolsOfMode, type DashboardChargeFilters } from '@/lib/charges/dashboard-filters';
import { CHARGE_STATUSES } from '@/lib/charges/state';
import type { ApiKeyMode } from '@/lib/merchants/dashboard-mode';

const CONTROL =
  'min-h-11 w-full rounded-lg border border-slate-300 bg-white px-3 text-sm outline-none focus:border-brand-500 focus:ring-2 focus:ring-brand-100';

/**
 * The Charges tab's filters: a plain GET form, so a filtered list is a URL (bookmark it, share it,
 * and the export link carries the same query).
 */
export function ChargeFilters({ filters, mode }: { filters: DashboardChargeFilters; mode: ApiKeyMode }) {
  return (
    <form
      method="get"
      action="/dashboard/charges"
      className="grid grid-cols-1 gap-3 rounded-xl bg-white p-4 ring-1 ring-slate-200 sm:grid-cols-3"
      aria-label="Filter charges"
    >
      <div className="flex flex-col gap-1 sm:col-span-3">
        <label htmlFor="filter-q" className="text-sm font-medium text-slate-800">
          Search
        </label>
        <input
          id="filter-q"
          name="q"
          type="search"
          defaultValue={filters.q ?? ''}
          placeholder="ch_… or orderId:1001"
          aria-describedby="filter-q-hint"
          className={CONTROL}
        />
        <p id="filter-q-hint" className="text-xs text-slate-500">
          A charge id, <code>key:value</code> for a metadata field (exact), or a value to find in any metadata field (exact).
        </p>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-status" className="text-sm font-medium text-slate-800">
          Status
        </label>
        <select id="filter-status" name="status" defaultValue={filters.status ?? ''} className={CONTROL}>
          <option value="">Any status</option>
          {CHARGE_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-chain" className="text-sm font-medium text-slate-800">
          Chain
        </label>
        <select id="filter-chain" name="chain" defaultValue={filters.chain ?? ''} className={CONTROL}>
          <option value="">Any chain</option>
          {chainsOfMode(mode).map((chain) => (
            <option key={chain} value={chain}>
              {CHAINS[chain].displayName}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-token" className="text-sm font-medium text-slate-800">
          Token
        </label>
        <input
          id="filter-token"
          name="token"
          list="filter-token-options"
          defaultValue={filters.token ?? ''}
          placeholder="Any token"
          className={CONTROL}
        />
        <datalist id="filter-token-options">
          {tokenSymbolsOfMode(mode).map((symbol) => (
            <option key={symbol} value={symbol} />
          ))}
        </datalist>
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-from" className="text-sm font-medium text-slate-800">
          Created from (UTC)
        </label>
        <input id="filter-from" name="from" type="date" defaultValue={filters.from ?? ''} className={CONTROL} />
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor="filter-to" className="text-sm font-medium text-slate-800">
          Created to (UTC)
        </label>
        <input id="filter-to" name="to" type="date" defaultValue={filters.to ?? ''} className={CONTROL} />
      </div>
      <div className="flex items-end gap-2">
        <button
          type="submit"
          className="inline-flex min-h-11 items-center rounded-lg bg-brand-600 px-4 text-sm font-semibold text-white hover:bg-brand-700"
        >
          Apply filters
        </button>
        <Link
          href="/dashboard/charges"
          className="inline-flex min-h-11 items-center rounded-lg px-3 text-sm text-slate-700 hover:bg-slate-100"
        >
          Clear
        </Link>
      </div>
    </form>
  );
}
