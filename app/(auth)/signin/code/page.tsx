import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { confirmSignInCode, resendCode } from '../../actions';
import { CodeForm } from '@/components/auth/code-form';
import { AuthCard } from '@/components/ui/card';

export const metadata: Metadata = { title: 'Enter your code' };

export default async function SignInCodePage({ searchParams }: { searchParams: Promise<{ email?: string; callbackUrl?: string }> }) {
  const { email, callbackUrl } = await searchParams;
  if (!email) redirect('/signin');
  return (
    <AuthCard title="Check your e-mail" subtitle="Enter the code we sent to sign in.">
      <CodeForm
        email={email}
        action={confirmSignInCode}
        resendAction={resendCode}
        purpose="signin"
        callbackUrl={callbackUrl}
        submitLabel="Sign in"
      />
    </AuthCard>
  );
}
