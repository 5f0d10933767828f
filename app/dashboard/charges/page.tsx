import type { Metadata } from 'next';
import Link from 'next/link';
import { ChargeFilters } from '@/components/dashboard/charge-filters';
import { ChargesTable } from '@/components/dashboard/charges-table';
import { dashboardChargeQueryString, parseDashboardChargeQuery, type DashboardChargeFilters } from '@/lib/charges/dashboard-filters';
import { listChargesForDashboard, type DashboardChargeListItem } from '@/lib/charges/list-dashboard-charges';
import { isAppError } from '@/lib/errors';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'Charges' };

/** The mode's charges, newest first: filters (a GET form), pages by cursor, and a CSV export of the same filters. */
export default async function ChargesPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/charges' });
  const mode = await dashboardMode();
  const parsed = parseDashboardChargeQuery(await searchParams);
  const filters: DashboardChargeFilters = parsed.ok ? parsed.filters : {};
  let error = parsed.ok ? undefined : parsed.message;
  let page: { charges: DashboardChargeListItem[]; nextCursor?: string } = { charges: [] };
  if (parsed.ok) {
    try {
      page = await listChargesForDashboard({ userId: user.id, merchantId: membership.merchant.id, mode, filters, cursor: parsed.after });
    } catch (caught) {
      if (!isAppError(caught) || caught.code !== 'invalid_request') throw caught;
      error = caught.message;
    }
  }
  const isFiltered = Object.keys(filters).length > 0;
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-8">
      <div className="flex flex-wrap items-baseline justify-between gap-3">
        <h1 className="text-xl font-semibold">Charges ({mode})</h1>
        {/* A plain link: the route answers with a file download, not a page. */}
        <a
          href={`/dashboard/charges/export${dashboardChargeQueryString(filters)}`}
          className="text-sm font-medium text-brand-700 underline"
          download
        >
          Export CSV
        </a>
      </div>
      {/* Keyed by the query: the form's fields are uncontrolled, so a client-side navigation ("Clear") must remount it. */}
      <ChargeFilters key={dashboardChargeQueryString(filters)} filters={filters} mode={mode} />
      {error && (
        <p role="alert" className="text-sm text-rose-700">
          {error}
        </p>
      )}
      {page.charges.length > 0 ? (
        <ChargesTable charges={page.charges} />
      ) : (
        !error && (
          <p className="text-sm text-slate-600" data-testid="no-charges">
            {isFiltered ? 'No charges match these filters.' : `No ${mode} charges yet.`}
          </p>
        )
      )}
      <nav aria-label="Pages" className="flex gap-4 text-sm">
        {parsed.ok && parsed.after && (
          <Link href={`/dashboard/charges${dashboardChargeQueryString(filters)}`} className="text-brand-700 underline">
            First page
          </Link>
        )}
        {page.nextCursor && (
          <Link
            href={`/dashboard/charges${dashboardChargeQueryString(filters, page.nextCursor)}`}
            className="text-brand-700 underline"
            rel="next"
          >
            Next page
          </Link>
        )}
      </nav>
    </main>
  );
}
