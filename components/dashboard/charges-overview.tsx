import Link from 'next/link';
import { BarChart } from '@/components/dashboard/bar-chart';
import { ChargesTable } from '@/components/dashboard/charges-table';
import type { DashboardOverview } from '@/lib/charges/get-dashboard-overview';
import type { ApiKeyMode } from '@/lib/merchants/dashboard-mode';
import { formatUsd } from '@/lib/pricing/approximate-usd';

/** The Overview's charge figures: succeeded charges per day (count, and volume per token) and the latest charges. */
export function ChargesOverview({ overview, mode }: { overview: DashboardOverview; mode: ApiKeyMode }) {
  return (
    <div className="mt-8 flex flex-col gap-8">
      <section aria-labelledby="succeeded-heading" className="flex flex-col gap-4 rounded-xl bg-white p-5 ring-1 ring-slate-200">
        <div>
          <h2 id="succeeded-heading" className="font-semibold">
            Succeeded charges, last 30 days ({mode})
          </h2>
          <p className="mt-1 text-sm text-slate-600">
            By the day the charge was created (UTC). Volume is per token: different tokens are never added together.
          </p>
        </div>
        <p className="text-3xl font-semibold tabular-nums">
          <span data-testid="succeeded-count">{overview.succeededCount}</span>{' '}
          <span className="text-base font-normal text-slate-600">succeeded</span>
        </p>
        {overview.series.length > 0 ? (
          <>
            <ul className="flex flex-col gap-1 text-sm" data-testid="volume-by-token">
              {overview.series.map((series) => (
                <li key={`${series.chain}-${series.tokenAddress}`} data-testid="token-volume">
                  <strong className="tabular-nums">
                    {series.volume} {series.tokenSymbol}
                  </strong>{' '}
                  on {series.chainDisplayName} · {series.count} {series.count === 1 ? 'charge' : 'charges'}
                  {series.usd !== undefined && <span className="text-slate-600"> · ≈ {formatUsd(series.usd)}</span>}
                </li>
              ))}
            </ul>
            <div className="grid gap-6 md:grid-cols-2">
              <BarChart
                title="Succeeded charges per day"
                valueHeading="Succeeded charges"
                testId="chart-count"
                bars={overview.dailyCounts.map((day) => ({ label: day.day, value: BigInt(day.count), text: String(day.count) }))}
              />
              {overview.series.map((series) => (
                <BarChart
                  key={`${series.chain}-${series.tokenAddress}`}
                  title={`Volume per day, ${series.tokenSymbol} on ${series.chainDisplayName}`}
                  valueHeading={`Volume (${series.tokenSymbol})`}
                  bars={series.days.map((day) => ({
                    label: day.day,
                    value: day.volumeBaseUnits,
                    text: `${day.volume} ${series.tokenSymbol}`,
                  }))}
                />
              ))}
            </div>
          </>
        ) : (
          <p className="text-sm text-slate-600">No succeeded {mode} charges in the last 30 days.</p>
        )}
      </section>

      <section aria-labelledby="recent-heading" className="flex flex-col gap-3">
        <div className="flex items-baseline justify-between gap-3">
          <h2 id="recent-heading" className="font-semibold">
            Recent charges
          </h2>
          <Link href="/dashboard/charges" className="text-sm text-brand-700 underline">
            All charges
          </Link>
        </div>
        {overview.recent.length > 0 ? (
          <ChargesTable charges={overview.recent} testId="recent-charges" />
        ) : (
          <p className="text-sm text-slate-600">
            No {mode} charges yet. Create one with your {mode === 'test' ? 'test' : 'production'} key (see the API Keys tab).
          </p>
        )}
      </section>
    </div>
  );
}
