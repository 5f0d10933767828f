'use client';

import dynamic from 'next/dynamic';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import type { ConnectWalletPay, WalletKind } from './connect-wallet-pay';

type Props = Omit<Parameters<typeof ConnectWalletPay>[0], 'autoStart'>;

// wagmi, viem and react-query are most of a wallet page's JavaScript: the checkout loads them only
// after the click, so the first load stays small for everyone paying another way.
const ConnectWalletPanel = dynamic(() => import('./connect-wallet-panel'), {
  ssr: false,
  loading: () => (
    <Button type="button" variant="secondary" disabled>
      Opening your wallet…
    </Button>
  ),
});

export function ConnectWalletLazy(props: Props) {
  const [open, setOpen] = useState<WalletKind>();
  if (open) return <ConnectWalletPanel {...props} autoStart={open} />;
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
