'use client';

import dynamic from 'next/dynamic';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import type { ConnectWalletPay } from './connect-wallet-pay';

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
  const [open, setOpen] = useState(false);
  if (open) return <ConnectWalletPanel {...props} autoStart />;
  return (
    <Button type="button" variant="secondary" onClick={() => setOpen(true)}>
      Connect wallet and pay {props.label}
    </Button>
  );
}
