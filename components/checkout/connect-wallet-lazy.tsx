'use client';

import { lazy, Suspense, useState } from 'react';
import { Button } from '@/components/ui/button';
import type { ConnectWalletPay, WalletKind } from './connect-wallet-pay';

type Props = Omit<Parameters<typeof ConnectWalletPay>[0], 'autoStart'>;

// wagmi, viem, react-query and the connectors are most of a wallet page's JavaScript: the checkout
// imports them only when the panel first renders, after the click, so the first load stays small for
// everyone paying another way (e2e/checkout-weight.spec.ts holds it). React.lazy rather than next/dynamic:
// the panel never renders on the server, and next/dynamic's loadable wrapper would be on the first load.
const ConnectWalletPanel = lazy(() => import('./connect-wallet-panel'));

export function ConnectWalletLazy(props: Props) {
  const [open, setOpen] = useState<WalletKind>();
  if (open) {
    return (
      <Suspense
        fallback={
          <Button type="button" variant="secondary" disabled>
            Opening your wallet…
          </Button>
        }
      >
        <ConnectWalletPanel {...props} autoStart={open} />
      </Suspense>
    );
  }
  return (
    <div className="flex flex-col gap-2">
      <Button type="button" variant="secondary" onClick={() => setOpen('injected')}>
        Connect wallet and pay {props.label}
      </Button>
      {props.walletConnectProjectId && (
        <Button type="button" variant="secondary" onClick={() => setOpen('walletConnect')} data-testid="walletconnect">
          Pay with WalletConnect
        </Button>
      )}
    </div>
  );
}
