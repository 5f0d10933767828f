import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { VerifyEmailForm } from '@/components/auth/verify-email-form';
import { AuthCard } from '@/components/ui/card';
import { requireUser } from '@/lib/auth/session';

export const metadata: Metadata = { title: 'Verify your e-mail' };

export default async function VerifyEmailPage() {
  const user = await requireUser({ allowUnverifiedEmail: true, returnTo: '/verify-email' });
  if (user.emailVerifiedAt) redirect('/wallet');
  return (
    <AuthCard
      title="Verify your e-mail"
      subtitle="Accounts created with Sign in with Ethereum need a verified e-mail before they can be used."
    >
      <VerifyEmailForm />
    </AuthCard>
  );
}
