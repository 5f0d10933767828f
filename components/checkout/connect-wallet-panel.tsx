'use client';

import { WalletProvider } from '@/components/providers/wallet-provider';
import { ConnectWalletPay } from './connect-wallet-pay';

/** wagmi and its wallet code, loaded only when the consumer chooses "Connect wallet" (see connect-wallet-lazy.tsx). */
export default function ConnectWalletPanel(props: Parameters<typeof ConnectWalletPay>[0]) {
  return (
    <WalletProvider>
      <ConnectWalletPay {...props} />
    </WalletProvider>
  );
}
