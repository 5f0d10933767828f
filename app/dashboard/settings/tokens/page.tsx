import type { Metadata } from 'next';
import { AddCustomTokenForm, TokenToggle } from '@/components/dashboard/tokens';
import { CHAINS } from '@/lib/chains/registry';
import { isChainServed } from '@/lib/chains/served';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { roleAllows } from '@/lib/merchants/permissions';
import { chainsOfMode, listAcceptedTokens } from '@/lib/merchants/tokens';
import { DataTable } from '@/components/ui/data-table';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'Tokens' };

export default async function TokensPage() {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/settings/tokens' });
  const mode = await dashboardMode();
  const tokens = await listAcceptedTokens({ userId: user.id, merchantId: membership.merchant.id, mode });
  const canManage = roleAllows(membership.role, 'tokens.manage');
  // A custom token's details are read from its chain: only chains this server reaches.
  const customChains = chainsOfMode('live').filter((chain) => CHAINS[chain].family === 'evm' && isChainServed(chain));
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-8">
      <div>
        <h1 className="text-xl font-semibold">Tokens ({mode})</h1>
        <p className="mt-1 text-sm text-slate-600">
          The tokens your charges may ask for, per network. Charges for a disabled token are refused ({'`unsupported_token`'}).
          {mode === 'test' && ' Test charges use the native coin of the test networks.'} Networks marked “not configured” have no RPC
          endpoint on this server: charges on them are refused ({'`chain_not_configured`'}).
        </p>
      </div>
      <DataTable
        columns={[
          { label: 'Network' },
          { label: 'Token' },
          { label: 'Address' },
          { label: 'Status', className: 'py-2 text-right font-medium' },
        ]}
        minWidthClass="min-w-[34rem]"
        testId="tokens"
        label="Tokens"
      >
        {tokens.map((token) => (
          <tr key={`${token.chain}:${token.address}`} data-testid="token-row">
            <td className="py-2">
              {CHAINS[token.chain].displayName}
              {!token.isChainServed && (
                <span className="ml-2 text-xs text-amber-700" data-testid="chain-not-configured">
                  not configured
                </span>
              )}
            </td>
            <td className="py-2">
              {token.symbol}{' '}
              <span className="text-xs text-slate-500">
                ({token.decimals} decimals{token.isNative ? ', native' : ''}
                {token.isCustom ? ', custom' : ''})
              </span>
            </td>
            <td className="py-2 font-mono text-xs">{token.address}</td>
            <td className="py-2">
              <TokenToggle
                chain={token.chain}
                address={token.address}
                symbol={token.symbol}
                enabled={token.enabled}
                canManage={canManage}
              />
            </td>
          </tr>
        ))}
      </DataTable>
      {canManage && mode === 'live' && <AddCustomTokenForm chains={customChains} />}
    </main>
  );
}
