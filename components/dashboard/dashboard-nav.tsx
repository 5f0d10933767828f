'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const TABS = [
  { href: '/dashboard', label: 'Overview' },
  { href: '/dashboard/charges', label: 'Charges' },
  { href: '/dashboard/balances', label: 'Balances' },
  { href: '/dashboard/settings/api-keys', label: 'API Keys' },
  { href: '/dashboard/settings/webhooks', label: 'Webhooks' },
  { href: '/dashboard/settings/linked-accounts', label: 'Linked Accounts' },
  { href: '/dashboard/settings/members', label: 'Members' },
  { href: '/dashboard/settings/tokens', label: 'Tokens' },
  { href: '/dashboard/settings/oauth', label: 'OAuth' },
  { href: '/dashboard/settings/contracts', label: 'Contracts' },
  { href: '/dashboard/settings/profile', label: 'Profile' },
  { href: '/dashboard/settings/audit-log', label: 'Audit log' },
] as const;

export function DashboardNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Dashboard" className="mx-auto flex max-w-5xl gap-1 overflow-x-auto px-4">
      {TABS.map((tab) => {
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
