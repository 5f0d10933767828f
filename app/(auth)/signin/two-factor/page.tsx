import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { TwoFactorForm } from '@/components/auth/two-factor-form';
import { AuthCard } from '@/components/ui/card';
import { getSecondFactorPendingUserId } from '@/lib/auth/session';

export const metadata: Metadata = { title: 'Two-factor sign-in' };

export default async function TwoFactorPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string }> }) {
  const { callbackUrl } = await searchParams;
  if (!(await getSecondFactorPendingUserId())) redirect('/signin');
  return (
    <AuthCard title="Confirm it is you" subtitle="Your account has two-factor sign-in.">
      <TwoFactorForm callbackUrl={callbackUrl} />
    </AuthCard>
  );
}
