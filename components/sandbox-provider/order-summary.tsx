import type { PaymentScreen } from '@/lib/sandbox-provider/payment-screen';
import { Panel } from './brand';

export function OrderSummary({ screen }: { screen: PaymentScreen }) {
  return (
    <Panel>
      {screen.standingInFor && (
        <p className="mb-3 rounded-lg bg-amber-50 px-3 py-2 text-xs text-amber-900 ring-1 ring-amber-200" data-testid="sandbox-standing-in">
          Standing in for {screen.standingInFor} in this test environment.
        </p>
      )}
      <h1 className="text-sm font-medium text-stone-500">You are buying</h1>
      <p className="mt-1 text-2xl font-semibold" data-testid="sandbox-token-amount">
        {screen.tokenAmount} {screen.tokenSymbol}
      </p>
      <dl className="mt-4 grid grid-cols-[auto_1fr] gap-x-4 gap-y-2 text-sm">
        <dt className="text-stone-500">Network</dt>
        <dd data-testid="sandbox-chain">{screen.chainName}</dd>
        <dt className="text-stone-500">Delivered to</dt>
        <dd className="font-mono" title={screen.walletAddress} data-testid="sandbox-wallet">
          {screen.walletShort}
        </dd>
        <dt className="text-stone-500">Total</dt>
        <dd className="font-semibold" data-testid="sandbox-total">
          {screen.total}
        </dd>
      </dl>
    </Panel>
  );
}
