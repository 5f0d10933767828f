// GET /oauth/authorize/{uid} — the person's part of "Sign in with Chargeport": sign in, then consent.
import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { redirect } from 'next/navigation';
import { ConsentForm } from '@/components/oauth/consent-form';
import { getSessionUser } from '@/lib/auth/session';
import { isAppError } from '@/lib/errors';
import { completeLogin } from '@/lib/oauth/complete-login';
import { loadAuthorizationStep, type AuthorizationStep } from '@/lib/oauth/load-authorization-step';

export const metadata: Metadata = { title: 'Sign in with Chargeport', robots: { index: false } };

export default async function AuthorizePage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  const cookieHeader = (await cookies()).toString();
  let step: AuthorizationStep;
  try {
    step = await loadAuthorizationStep({ uid, cookieHeader });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return (
      <main className="mx-auto flex min-h-dvh max-w-md flex-col justify-center gap-3 px-4">
        <h1 className="text-xl font-semibold">Sign-in expired</h1>
        <p role="alert" className="text-slate-700">
          {error.message}
        </p>
      </main>
    );
  }
  const user = await getSessionUser();
  const here = `/oauth/authorize/${uid}`;
  if (!user) redirect(`/signin?callbackUrl=${encodeURIComponent(here)}`);
  if (!user.emailVerifiedAt) redirect('/verify-email');
  // Signed in to Chargeport: that is the account the app gets (the provider then asks for consent, or is done).
  if (step.prompt === 'login') redirect(await completeLogin({ uid, cookieHeader, userId: user.id }));
  return <ConsentForm step={step} email={user.email ?? ''} isOtherAccount={step.accountId !== user.id} />;
}
