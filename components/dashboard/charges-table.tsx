import { Amount } from '@/components/ui/amount';
import Link from 'next/link';
import type { DashboardChargeListItem } from '@/lib/charges/list-dashboard-charges';
import type { ChargeStatus } from '@/lib/charges/state';
import { DataTable } from '@/components/ui/data-table';

/** "2026-03-01 14:05 UTC": dashboards show UTC, the zone the date filters and the CSV use. */
export function formatUtc(value: Date): string {
  return `${value.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const STATUS_STYLES: Record<ChargeStatus, string> = {
  pending: 'bg-slate-100 text-slate-700',
  processing: 'bg-sky-100 text-sky-800',
  succeeded: 'bg-emerald-100 text-emerald-800',
  failed: 'bg-rose-100 text-rose-800',
  expired: 'bg-amber-100 text-amber-900',
  canceled: 'bg-slate-200 text-slate-700',
};

export function ChargeStatusBadge({ status }: { status: ChargeStatus }) {
  return (
    <span className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLES[status]}`} data-testid="charge-status">
      {status}
    </span>
  );
}

/** Charges as rows; scrolls sideways on a phone rather than squeezing the ids. */
export function ChargesTable({ charges, testId = 'charges' }: { charges: DashboardChargeListItem[]; testId?: string }) {
  return (
    <DataTable
      columns={[
        { label: 'Charge', className: 'py-2 pr-3 font-medium' },
        { label: 'Status', className: 'py-2 pr-3 font-medium' },
        { label: 'Amount', className: 'py-2 pr-3 text-right font-medium' },
        { label: 'Chain', className: 'py-2 pr-3 font-medium' },
        { label: 'Created', className: 'py-2 pr-3 font-medium' },
        { label: 'Metadata' },
      ]}
      minWidthClass="min-w-[40rem]"
      testId={testId}
      label="Charges"
      relative={false}
    >
      {charges.map((charge) => (
        <tr key={charge.id} data-testid="charge-row" data-charge-id={charge.id}>
          <td className="py-2 pr-3 font-mono text-xs">
            <Link href={`/dashboard/charges/${charge.id}`} className="text-brand-700 underline">
              {charge.id}
            </Link>
          </td>
          <td className="py-2 pr-3">
            <ChargeStatusBadge status={charge.status} />
            {charge.needsReview && (
              <span
                className="ml-1 inline-block rounded bg-rose-100 px-1.5 py-0.5 text-xs font-medium text-rose-800"
                title="A payment of this charge left the chain after it succeeded: see its timeline"
                data-testid="charge-needs-review"
              >
                needs review
              </span>
            )}
          </td>
          <td className="whitespace-nowrap py-2 pr-3 text-right tabular-nums">
            <Amount value={charge.amount} symbol={charge.tokenSymbol} />
          </td>
          <td className="whitespace-nowrap py-2 pr-3 text-slate-600">{charge.chainDisplayName}</td>
          <td className="whitespace-nowrap py-2 pr-3 text-slate-600">{formatUtc(charge.createdAt)}</td>
          <td className="max-w-56 truncate py-2 font-mono text-xs text-slate-600" title={metadataText(charge.metadata)}>
            {metadataText(charge.metadata)}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

function metadataText(metadata: Record<string, string>): string {
  return Object.entries(metadata)
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ');
}
