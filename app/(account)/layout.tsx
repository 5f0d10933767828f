import Link from 'next/link';
import type { ReactNode } from 'react';
import { signOutAction } from '@/app/(auth)/actions';
import { WalletTabs } from '@/components/wallet/wallet-tabs';
import { getSessionUser } from '@/lib/auth/session';

// Account settings; the wallet's own tabs (Home … Profile) are the row below (WalletTabs).
const NAV = [
  { href: '/account/wallets', label: 'Wallets' },
  { href: '/account/pin', label: 'PIN' },
  { href: '/account/security', label: 'Security' },
  { href: '/account/phone', label: 'Phone' },
];

export default async function AccountLayout({ children }: { children: ReactNode }) {
  // Each page calls requireUser() with its own return path; the layout only shows who is signed in.
  const user = await getSessionUser();
  return (
    <div className="min-h-dvh">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-3xl flex-wrap items-center gap-x-4 gap-y-2 px-4 py-3">
          <Link href="/wallet" className="font-semibold tracking-tight">
            Chargeport
          </Link>
          <nav aria-label="Account" className="flex flex-1 flex-wrap gap-1 text-sm">
            {NAV.map((item) => (
              <Link key={item.href} href={item.href} className="rounded-md px-2 py-1 text-slate-700 hover:bg-slate-100">
                {item.label}
              </Link>
            ))}
          </nav>
          <span className="hidden text-sm text-slate-500 sm:inline" data-testid="signed-in-as">
            {user?.email}
          </span>
          <form action={signOutAction}>
            <button className="rounded-md px-2 py-1 text-sm text-slate-700 hover:bg-slate-100">Sign out</button>
          </form>
        </div>
        <div className="border-t border-slate-100">
          <WalletTabs />
        </div>
      </header>
      <main className="mx-auto max-w-3xl px-4 py-8">{children}</main>
    </div>
  );
}
