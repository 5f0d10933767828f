import type { ReactNode } from 'react';
import { DashboardNav } from '@/components/dashboard/dashboard-nav';
import { Logo } from '@/components/ui/logo';
import { requireUser } from '@/lib/auth/session';
import { findMerchantOfUser } from '@/lib/merchants/find-merchant-of-user';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { setDashboardModeAction } from './mode-actions';

/** The merchant's frame: name, test/live switch and the tabs. Accounts that are not merchants yet see only the page. */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await requireUser({ returnTo: '/dashboard' });
  const membership = await findMerchantOfUser(user.id);
  if (!membership) return children;
  const mode = await dashboardMode();
  return (
    <div className="min-h-dvh">
      {mode === 'test' && (
        <div className="bg-amber-400 px-4 py-1 text-center text-xs font-semibold text-amber-950" data-testid="dashboard-test-banner">
          Test mode: you are viewing test data
        </div>
      )}
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-5xl flex-wrap items-center justify-between gap-3 px-4 py-3">
          <div className="flex min-w-0 items-center gap-3">
            <Logo href="/dashboard" />
            <span aria-hidden="true" className="h-5 w-px bg-slate-300" />
            <p className="truncate font-semibold" data-testid="dashboard-merchant">
              {membership.merchant.name}
            </p>
          </div>
          <form action={setDashboardModeAction} className="flex items-center gap-2 text-sm">
            <span className="text-slate-600">Mode</span>
            <div role="group" aria-label="Test or live mode" className="inline-flex overflow-hidden rounded-lg ring-1 ring-slate-300">
              {(['test', 'live'] as const).map((value) => (
                <button
                  key={value}
                  type="submit"
                  name="mode"
                  value={value}
                  aria-pressed={mode === value}
                  className={`px-3 py-1.5 font-medium ${mode === value ? 'bg-slate-900 text-white' : 'bg-white text-slate-700 hover:bg-slate-50'}`}
                >
                  {value === 'test' ? 'Test' : 'Live'}
                </button>
              ))}
            </div>
          </form>
        </div>
        <DashboardNav />
      </header>
      {children}
    </div>
  );
}
