import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import type { ReactNode } from 'react';
import { SandpiperFrame } from '@/components/sandbox-provider/brand';
import { isSandboxProviderEnabled } from '@/lib/sandbox-provider/config';

// The sandbox provider's pages carry its own name, not Chargeport's.
export const metadata: Metadata = { title: { absolute: 'Sandpiper Pay (sandbox)' }, robots: { index: false } };

export default function SandboxProviderLayout({ children }: { children: ReactNode }) {
  if (!isSandboxProviderEnabled()) notFound();
  return <SandpiperFrame>{children}</SandpiperFrame>;
}
