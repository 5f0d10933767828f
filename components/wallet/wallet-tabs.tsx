'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const TABS = [
  { href: '/wallet', label: 'Home' },
  { href: '/wallet/activity', label: 'Activity' },
  { href: '/wallet/buy', label: 'Buy' },
  { href: '/wallet/receive', label: 'Receive' },
  { href: '/wallet/send', label: 'Send' },
  { href: '/account/profile', label: 'Profile' },
] as const;

/** The wallet's one navigation: six equal columns on a 375 px phone, a row of tabs from `sm` up. */
export function WalletTabs() {
  const pathname = usePathname();
  return (
    <nav aria-label="Wallet" className="mx-auto grid max-w-3xl grid-cols-6 px-2 sm:flex sm:gap-1 sm:px-4">
      {TABS.map((tab) => {
        // Home only on itself; the others also on their sub-pages (a send's result is under Send), and
        // Profile on every account setting (AccountNav lists them).
        const current =
          pathname === tab.href ||
          (tab.href !== '/wallet' && pathname.startsWith(`${tab.href}/`)) ||
          (tab.href === '/account/profile' && pathname.startsWith('/account/'));
        const className = `flex min-h-11 items-center justify-center border-b-2 px-1 text-xs font-medium whitespace-nowrap sm:px-3 sm:text-sm ${current ? 'border-brand-600 text-brand-700' : 'border-transparent text-slate-600 hover:text-slate-900'}`;
        // Buy is a server redirect to the on-ramp: a full navigation, not a client transition.
        return tab.href === '/wallet/buy' ? (
          <a key={tab.href} href={tab.href} className={className}>
            {tab.label}
          </a>
        ) : (
          <Link key={tab.href} href={tab.href} aria-current={current ? 'page' : undefined} className={className}>
            {tab.label}
          </Link>
        );
      })}
    </nav>
  );
}
