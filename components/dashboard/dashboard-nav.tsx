'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { DASHBOARD_TABS } from './dashboard-tabs';

export function DashboardNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Dashboard" className="mx-auto flex max-w-5xl gap-1 overflow-x-auto px-4">
      {DASHBOARD_TABS.map((tab) => {
        // A tab stays current on its sub-pages (a charge's page is under Charges); Overview only on itself.
        const current = pathname === tab.href || (tab.href !== '/dashboard' && pathname.startsWith(`${tab.href}/`));
        return (
          <Link
            key={tab.href}
            href={tab.href}
            aria-current={current ? 'page' : undefined}
            className={`whitespace-nowrap border-b-2 px-3 py-2 text-sm font-medium ${current ? 'border-brand-600 text-brand-700' : 'border-transparent text-slate-600 hover:text-slate-900'}`}
          >
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}
