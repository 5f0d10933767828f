import type { Metadata } from 'next';
import { ContractCard, RegisterContractForm } from '@/components/dashboard/contracts';
import { CHAINS } from '@/lib/chains/registry';
import { isChainServed } from '@/lib/chains/served';
import { signatureOf } from '@/lib/contracts/abi';
import { describeBinding } from '@/lib/contracts/bind-arguments';
import { describePriceList } from '@/lib/contracts/price-list-refusal';
import { listContracts } from '@/lib/contracts/list-contracts';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { roleAllows } from '@/lib/merchants/permissions';
import { chainsOfMode } from '@/lib/merchants/tokens';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'Contracts' };

/** Settings → Contracts: the game's contracts, what Chargeport read of them, and the rules that mint when a charge succeeds. */
export default async function ContractsPage() {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/settings/contracts' });
  const mode = await dashboardMode();
  const overview = await listContracts({ userId: user.id, merchantId: membership.merchant.id, mode });
  const canManage = roleAllows(membership.role, 'contracts.manage');
  const chains = chainsOfMode(mode).filter((chain) => CHAINS[chain].family === 'evm' && isChainServed(chain));
  return (
    <main className="mx-auto flex max-w-5xl min-w-0 flex-col gap-6 px-4 py-8">
      <div>
        <h1 className="text-xl font-semibold">Contracts ({mode})</h1>
        <p className="mt-1 text-sm text-slate-600">
          Register your game’s contracts and say what to call when a charge succeeds — for example, mint the item bought to the player.
          Calls are made by your service wallet through Chargeport’s transaction engine, once per charge and rule; you receive{' '}
          <code className="break-all">fulfilment.succeeded</code> or <code className="break-all">fulfilment.failed</code>.
        </p>
        <p className="mt-1 text-sm text-slate-600" data-testid="contracts-who-may-change">
          Only an owner can register contracts and add, pause or resume rules, confirming with their PIN or a passkey; every owner is
          e-mailed. {canManage ? '' : `Your role (${membership.role}) can read this page.`}
        </p>
      </div>
      <section className="rounded-xl bg-white p-4 ring-1 ring-slate-200 sm:p-5" aria-labelledby="service-wallet-heading">
        <h2 id="service-wallet-heading" className="font-semibold">
          Your service wallet
        </h2>
        <p className="mt-1 break-all font-mono text-sm" data-testid="service-wallet">
          {overview.serviceWallet}
        </p>
        <p className="mt-1 text-sm text-slate-600">
          Grant this address the minter role on your contracts (for OpenZeppelin AccessControl:{' '}
          <code className="break-all">grantRole(MINTER_ROLE, address)</code>
          ). Network fees are paid by Chargeport’s gas tank when the wallet holds no native coin, within your daily limit.
        </p>
      </section>
      {overview.contracts.map((contract) => (
        <ContractCard
          key={contract.id}
          canManage={canManage}
          contract={{
            id: contract.id,
            chainName: CHAINS[contract.chain as keyof typeof CHAINS].displayName,
            address: contract.address,
            label: contract.label,
            kind: contract.kind,
            name: contract.name,
            symbol: contract.symbol,
            decimals: contract.decimals,
            interfaces: contract.interfaces,
            hasUploadedAbi: contract.hasUploadedAbi,
            functions: contract.functions.map((fn) => ({
              signature: signatureOf(fn),
              inputs: fn.inputs.map((input) => ({ name: input.name ?? '', type: input.type })),
            })),
            minter: contract.minter,
            rules: contract.rules.map((rule) => ({
              id: rule.id,
              function: rule.functionSignature,
              bindings: rule.bindings.map(describeBinding),
              enabled: rule.enabled,
              priceList: rule.priceList ? describePriceList(rule.priceList) : null,
            })),
          }}
        />
      ))}
      {canManage && <RegisterContractForm chains={chains} />}
    </main>
  );
}
