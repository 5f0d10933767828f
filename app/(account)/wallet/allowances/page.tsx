import type { Metadata } from 'next';
import { RevokeAllowanceButton } from '@/components/wallet/revoke-allowance-button';
import { requireUser } from '@/lib/auth/session';
import { listSpendingAllowances } from '@/lib/allowances/list-spending-allowances';

export const metadata: Metadata = { title: 'Spending allowances' };

/** Allowances: each merchant the user lets charge them without the PIN, what it may take a day, what it took, until when; revoke. */
export default async function AllowancesPage() {
  const user = await requireUser({ returnTo: '/wallet/allowances' });
  const allowances = await listSpendingAllowances(user.id);
  return (
    <div className="flex flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold">Spending allowances</h1>
        <p className="mt-1 text-sm text-slate-600">
          A merchant listed here may be paid from your balance with one tap, without your PIN, up to its amount in any 24 hours, in
          purchases you confirm on Chargeport. Anything above it, and every send or withdrawal, still asks for your PIN. You approve an
          allowance with your PIN when you pay that merchant.
        </p>
      </div>
      {allowances.length === 0 ? (
        <p className="text-sm text-slate-600" data-testid="no-allowances">
          No spending allowances: every purchase asks for your PIN.
        </p>
      ) : (
        <ul className="flex flex-col gap-3">
          {allowances.map((allowance) => (
            <li
              key={allowance.id}
              className="flex flex-col gap-2 rounded-xl bg-white p-4 ring-1 ring-slate-200 sm:flex-row sm:items-center sm:justify-between"
              data-testid="allowance"
            >
              <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
                <dt className="text-slate-500">Merchant</dt>
                <dd className="font-semibold">{allowance.merchantName}</dd>
                <dt className="text-slate-500">Token</dt>
                <dd>
                  {allowance.tokenSymbol} on {allowance.chainName}
                </dd>
                <dt className="text-slate-500">Per day</dt>
                <dd className="tabular-nums" data-testid="allowance-per-day">
                  {allowance.amountPerDay} {allowance.tokenSymbol}
                </dd>
                <dt className="text-slate-500">Spent in the last 24 h</dt>
                <dd className="tabular-nums" data-testid="allowance-spent">
                  {allowance.spentToday} {allowance.tokenSymbol}
                </dd>
                <dt className="text-slate-500">Until</dt>
                <dd>{allowance.expiresAt.slice(0, 16).replace('T', ' ')} UTC</dd>
              </dl>
              <RevokeAllowanceButton allowanceId={allowance.id} merchantName={allowance.merchantName} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
