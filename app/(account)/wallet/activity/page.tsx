import type { Metadata } from 'next';
import Link from 'next/link';
import { Notice } from '@/components/ui/card';
import { ActivityList } from '@/components/wallet/activity-list';
import { AutoRefresh } from '@/components/wallet/auto-refresh';
import { requireUser } from '@/lib/auth/session';
import { isAppError } from '@/lib/errors';
import { listWalletActivity } from '@/lib/wallets/activity';

export const metadata: Metadata = { title: 'Activity' };

/** Activity: on-ramp orders, transfers in and out, charge payments — newest first, in pages. */
export default async function ActivityPage({ searchParams }: { searchParams: Promise<{ after?: string | string[] }> }) {
  const user = await requireUser({ returnTo: '/wallet/activity' });
  const { after } = await searchParams;
  const cursor = typeof after === 'string' ? after : undefined;
  let page: Awaited<ReturnType<typeof listWalletActivity>>;
  try {
    page = await listWalletActivity({ userId: user.id, cursor });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return (
      <div className="flex flex-col gap-4">
        <h1 className="text-2xl font-semibold">Activity</h1>
        <Notice tone="error">{error.message}</Notice>
        <Link href="/wallet/activity" className="text-sm font-semibold text-brand-700 underline underline-offset-4">
          Newest activity
        </Link>
      </div>
    );
  }
  const isFirstPage = cursor === undefined;
  return (
    <div className="flex flex-col gap-4">
      <div>
        <h1 className="text-2xl font-semibold">Activity</h1>
        <p className="mt-1 text-sm text-slate-600">Purchases, transfers in and out, and payments, newest first.</p>
      </div>
      {/* Follow pending entries (an on-ramp being paid, a transfer being confirmed) on the newest page. */}
      {isFirstPage && page.items.some((item) => item.status === 'pending') && <AutoRefresh />}
      {page.items.length === 0 ? (
        <p className="rounded-xl bg-white p-6 text-center text-sm text-slate-600 ring-1 ring-slate-200" data-testid="activity-empty">
          {isFirstPage ? 'Nothing yet. Buy or receive tokens and they show up here.' : 'No older activity.'}
        </p>
      ) : (
        <ActivityList items={page.items} />
      )}
      <nav aria-label="Pages" className="flex justify-between text-sm font-semibold">
        {isFirstPage ? (
          <span />
        ) : (
          <Link href="/wallet/activity" className="text-brand-700 underline underline-offset-4">
            Newest
          </Link>
        )}
        {page.nextCursor && (
          <Link
            href={`/wallet/activity?${new URLSearchParams({ after: page.nextCursor })}`}
            className="text-brand-700 underline underline-offset-4"
          >
            Older
          </Link>
        )}
      </nav>
    </div>
  );
}
