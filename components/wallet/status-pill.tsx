import type { ActivityStatus } from '@/lib/wallets/activity';

const TONES: Record<ActivityStatus, string> = {
  pending: 'bg-amber-50 text-amber-900 ring-amber-200',
  completed: 'bg-emerald-50 text-emerald-900 ring-emerald-200',
  failed: 'bg-rose-50 text-rose-900 ring-rose-200',
  expired: 'bg-slate-100 text-slate-700 ring-slate-200',
};

export function StatusPill({ status, label }: { status: ActivityStatus; label: string }) {
  return (
    <span
      className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ${TONES[status]}`}
      data-testid="status"
      data-status={status}
    >
      {label}
    </span>
  );
}
