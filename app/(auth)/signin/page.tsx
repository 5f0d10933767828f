import type { Metadata } from 'next';
import Link from 'next/link';
import { requestSignInCode } from '../actions';
import { EmailForm } from '@/components/auth/email-form';
import { Divider, ProviderButtons } from '@/components/auth/provider-buttons';
import { AuthCard, Notice } from '@/components/ui/card';
import { oidcProvidersConfigured } from '@/lib/auth/auth';
import { withReturn } from '../return-link';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

const ERRORS: Record<string, string> = {
  email_not_verified: 'Your provider account has no verified e-mail address. Use another way to sign in.',
  OAuthCallbackError: 'The sign-in with your provider did not complete. Try again.',
  AccessDenied: 'The sign-in was cancelled.',
  Configuration: 'Sign-in is not available right now. Try again later.',
  provider: 'That sign-in provider is not available. Use another way to sign in.',
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ email?: string; registered?: string; callbackUrl?: string; error?: string; signedOut?: string }>;
}) {
  const params = await searchParams;
  const providers = oidcProvidersConfigured();
  return (
    <AuthCard
      title="Sign in"
      subtitle={
        <>
          New here?{' '}
          <Link
            href={withReturn('/signup', params.callbackUrl, params.email)}
            className="font-medium text-brand-600 underline underline-offset-4"
          >
            Create an account
          </Link>
        </>
      }
    >
      {params.registered && <Notice tone="success">Your account is ready. Sign in with a new code to continue.</Notice>}
      {params.signedOut === 'everywhere' && <Notice tone="success">You are signed out on every device.</Notice>}
      {params.error && <Notice tone="error">{ERRORS[params.error] ?? 'Sign-in failed. Try again.'}</Notice>}
      <EmailForm action={requestSignInCode} submitLabel="Send me a code" defaultEmail={params.email} callbackUrl={params.callbackUrl} />
      <Divider />
      <ProviderButtons google={providers.google} apple={providers.apple} callbackUrl={params.callbackUrl} />
    </AuthCard>
  );
}
