'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const PAGES = [
  { href: '/account/profile', label: 'Profile' },
  { href: '/account/wallets', label: 'Wallets and keys' },
  { href: '/account/pin', label: 'PIN' },
  { href: '/account/security', label: 'Security' },
  { href: '/account/phone', label: 'Phone' },
] as const;

/**
 * The settings under the wallet's Profile tab, shown on /account pages only: a secondary row inside the
 * page, so the wallet keeps one navigation (WalletTabs) instead of two competing bars.
 */
export function AccountNav() {
  const pathname = usePathname();
  if (!pathname.startsWith('/account/')) return null;
  return (
    <nav aria-label="Account settings" className="-mx-1 mb-6 flex flex-wrap gap-1 text-sm">
      {PAGES.map((page) => {
        const current = pathname === page.href || pathname.startsWith(`${page.href}/`);
        return (
          <Link
            key={page.href}
            href={page.href}
            aria-current={current ? 'page' : undefined}
            className={`rounded-full px-3 py-1.5 font-medium ${current ? 'bg-slate-900 text-white' : 'text-slate-700 ring-1 ring-slate-200 hover:bg-white'}`}
          >
            {page.label}
          </Link>
        );
      })}
    </nav>
  );
}
