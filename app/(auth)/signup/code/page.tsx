import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { confirmSignUpCode, resendCode } from '../../actions';
import { CodeForm } from '@/components/auth/code-form';
import { AuthCard } from '@/components/ui/card';

export const metadata: Metadata = { title: 'Enter your code' };

export default async function SignUpCodePage({ searchParams }: { searchParams: Promise<{ email?: string; callbackUrl?: string }> }) {
  const { email, callbackUrl } = await searchParams;
  if (!email) redirect('/signup');
  return (
    <AuthCard title="Check your e-mail" subtitle="Enter the code we sent to finish creating your account.">
      <CodeForm
        email={email}
        action={confirmSignUpCode}
        resendAction={resendCode}
        purpose="signup"
        callbackUrl={callbackUrl}
        submitLabel="Create account"
      />
    </AuthCard>
  );
}
