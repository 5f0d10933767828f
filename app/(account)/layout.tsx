import type { ReactNode } from 'react';
import { signOutAction } from '@/app/(auth)/actions';
import { AccountNav } from '@/components/account/account-nav';
import { Logo } from '@/components/ui/logo';
import { WalletTabs } from '@/components/wallet/wallet-tabs';
import { getSessionUser } from '@/lib/auth/session';

/**
 * The wallet's frame: the logo and who is signed in, then ONE navigation (WalletTabs: Home … Profile).
 * The account settings (wallets, PIN, security, phone) sit under Profile as a secondary row (AccountNav).
 */
export default async function AccountLayout({ children }: { children: ReactNode }) {
  // Each page calls requireUser() with its own return path; the layout only shows who is signed in.
  const user = await getSessionUser();
  return (
    <div className="min-h-dvh">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-3xl items-center gap-4 px-4 py-3">
          <Logo href="/wallet" />
          <span className="ml-auto hidden min-w-0 truncate text-sm text-slate-600 sm:inline" data-testid="signed-in-as">
            {user?.email}
          </span>
          <form action={signOutAction} className="ml-auto sm:ml-0">
            <button className="rounded-md px-2 py-1 text-sm text-slate-700 hover:bg-slate-100">Sign out</button>
          </form>
        </div>
        <div className="border-t border-slate-100">
          <WalletTabs />
        </div>
      </header>
      <main className="mx-auto max-w-3xl px-4 py-8">
        <AccountNav />
        {children}
      </main>
    </div>
  );
}
