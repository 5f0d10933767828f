import type { ReactNode } from 'react';
import { WalletProvider } from '@/components/providers/wallet-provider';

export default function AuthLayout({ children }: { children: ReactNode }) {
  return <WalletProvider>{children}</WalletProvider>;
}
