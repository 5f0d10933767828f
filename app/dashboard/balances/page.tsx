import type { Metadata } from 'next';
import { WithdrawForm } from '@/components/dashboard/withdraw-form';
import { formatUsableFrom } from '@/lib/accounts/two-factor/factor-usable-from';
import { CHAINS } from '@/lib/chains/registry';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { loadBalancesPage } from '@/lib/views/load-balances-page';
import { newWithdrawalId } from '@/lib/merchants/withdraw';
import { DataTable } from '@/components/ui/data-table';
import Link from 'next/link';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'Balances' };

/** The merchant's service wallet balances on the mode's networks, and withdrawals (owners, with their PIN). */
export default async function BalancesPage() {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/balances', permission: 'dashboard.view' });
  const mode = await dashboardMode();
  const { wallets, chains, customTokens, stranded, canWithdraw, heldUntil, twoFactor } = await loadBalancesPage({
    merchantId: membership.merchant.id,
    userId: user.id,
    role: membership.role,
    mode,
    merchantVerified: membership.merchant.verifiedAt !== null,
  });
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-8">
      <div>
        <h1 className="text-xl font-semibold">Balances ({mode})</h1>
        <p className="mt-1 text-sm text-slate-600">Your service wallets receive succeeded charges (swept from their deposit addresses):</p>
        <ul className="mt-1 text-sm text-slate-600">
          {wallets.map((wallet) => (
            <li key={wallet.family} data-testid="service-wallet" data-family={wallet.family}>
              {wallet.family === 'evm' ? 'EVM networks' : 'Solana'}: <span className="break-all font-mono text-xs">{wallet.address}</span>
            </li>
          ))}
        </ul>
      </div>
      <DataTable
        columns={[{ label: 'Network' }, { label: 'Token' }, { label: 'Balance', className: 'py-2 text-right font-medium' }]}
        minWidthClass="min-w-[24rem]"
        testId="balances"
        label="Balances"
      >
        {wallets
          .flatMap((wallet) => wallet.balances)
          .map((balance) => (
            <tr key={`${balance.chain}:${balance.symbol}`} data-testid="balance-row">
              <td className="py-2">{balance.chainName}</td>
              <td className="py-2">{balance.symbol}</td>
              <td className="py-2 text-right font-mono tabular-nums">{balance.amount ?? 'unavailable'}</td>
            </tr>
          ))}
      </DataTable>
      <section aria-labelledby="stranded-heading" className="flex flex-col gap-2" data-testid="stranded-funds">
        <h2 id="stranded-heading" className="font-semibold">
          Funds awaiting refund
        </h2>
        {stranded.length === 0 ? (
          <p className="text-sm text-slate-600">None: every payment went to a charge that succeeded in time.</p>
        ) : (
          <>
            <p className="text-sm text-slate-600">
              Payments to charges that did not succeed, and late payments, stay at the charge’s deposit address: they are the payer’s.
              Refund them from the charge’s page.
            </p>
            <DataTable
              columns={[{ label: 'Charge' }, { label: 'Why' }, { label: 'Amount', className: 'py-2 text-right font-medium' }]}
              minWidthClass="min-w-[28rem]"
              testId="stranded-funds-table"
              label="Funds awaiting refund"
            >
              {stranded.map((row) => (
                <tr key={row.chargeId} data-testid="stranded-row">
                  <td className="py-2">
                    <Link href={`/dashboard/charges/${row.chargeId}`} className="font-mono text-xs text-brand-700 underline">
                      {row.chargeId}
                    </Link>
                  </td>
                  <td className="py-2">{row.reason === 'late_payment' ? 'Paid after the charge closed' : `Charge ${row.chargeStatus}`}</td>
                  <td className="py-2 text-right font-mono tabular-nums whitespace-nowrap">{`${row.amount} ${row.symbol}`}</td>
                </tr>
              ))}
            </DataTable>
          </>
        )}
      </section>
      {canWithdraw ? (
        <WithdrawForm
          withdrawalId={newWithdrawalId()}
          heldUntil={heldUntil?.toISOString()}
          twoFactor={
            twoFactor.state === 'cooling'
              ? { state: 'cooling', usableFrom: formatUsableFrom(twoFactor.usableFrom) }
              : { state: twoFactor.state }
          }
          tokens={[
            ...chains.flatMap((chain) =>
              CHAINS[chain].tokens.map((token) => ({
                value: `${chain}:${token.address}`,
                label: `${token.symbol} on ${CHAINS[chain].displayName}`,
              })),
            ),
            ...customTokens.map((token) => ({
              value: `${token.chain}:${token.address}`,
              label: `${token.symbol} (custom) on ${CHAINS[token.chain].displayName}`,
            })),
          ]}
        />
      ) : (
        <p className="text-sm text-slate-600">Only owners can withdraw (your role: {membership.role}).</p>
      )}
    </main>
  );
}
