import type { Metadata } from 'next';
import Link from 'next/link';
import { requestSignUpCode } from '../actions';
import { EmailForm } from '@/components/auth/email-form';
import { Divider, ProviderButtons } from '@/components/auth/provider-buttons';
import { AuthCard } from '@/components/ui/card';
import { oidcProvidersConfigured } from '@/lib/auth/auth';
import { withReturn } from '../return-link';

export const metadata: Metadata = { title: 'Create your account' };
export const dynamic = 'force-dynamic';

export default async function SignUpPage({ searchParams }: { searchParams: Promise<{ callbackUrl?: string; email?: string }> }) {
  const { callbackUrl, email } = await searchParams;
  const providers = oidcProvidersConfigured();
  return (
    <AuthCard
      title="Create your account"
      subtitle={
        <>
          One account for the wallet and the merchant dashboard. Already have one?{' '}
          <Link href={withReturn('/signin', callbackUrl, email)} className="font-medium text-brand-600 underline underline-offset-4">
            Sign in
          </Link>
        </>
      }
    >
      <EmailForm action={requestSignUpCode} submitLabel="Send me a code" defaultEmail={email} callbackUrl={callbackUrl} />
      <Divider />
      <ProviderButtons google={providers.google} apple={providers.apple} callbackUrl={callbackUrl} />
    </AuthCard>
  );
}
