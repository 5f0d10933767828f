import type { ChargeStatus } from '@/lib/charges/state';

const STYLES: Record<ChargeStatus, { label: string; className: string }> = {
  pending: { label: 'Awaiting payment', className: 'bg-amber-100 text-amber-800' },
  processing: { label: 'Payment detected', className: 'bg-sky-100 text-sky-800' },
  succeeded: { label: 'Paid', className: 'bg-emerald-100 text-emerald-800' },
  failed: { label: 'Payment failed', className: 'bg-rose-100 text-rose-800' },
  expired: { label: 'Expired', className: 'bg-slate-200 text-slate-700' },
  canceled: { label: 'Canceled', className: 'bg-slate-200 text-slate-700' },
};

export function StatusBadge({ status }: { status: ChargeStatus }) {
  const style = STYLES[status];
  return (
    <span
      data-testid="charge-status"
      data-status={status}
      className={`whitespace-nowrap rounded-full px-3 py-1 text-sm font-medium ${style.className}`}
    >
      {style.label}
    </span>
  );
}
