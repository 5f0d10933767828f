import type { Metadata } from 'next';
import Link from 'next/link';
import { ChangePinForm, SetPinForm } from '@/components/account/pin-forms';
import { Notice } from '@/components/ui/card';
import { pinStatus } from '@/lib/accounts/pin-status';
import { isFirstPinPrompt } from '@/lib/accounts/set-first-pin';
import { requireUser, sessionSignedInAt } from '@/lib/auth/session';

export const metadata: Metadata = { title: 'PIN' };

export default async function PinPage({ searchParams }: { searchParams: Promise<{ next?: string }> }) {
  const user = await requireUser({ returnTo: '/account/pin' });
  const [status, { next }, signedInAt] = await Promise.all([pinStatus(user.id), searchParams, sessionSignedInAt()]);
  const needsEmailCode = !isFirstPinPrompt({ accountCreatedAt: user.createdAt, sessionSignedInAt: signedInAt });
  return (
    <section className="max-w-md">
      <h1 className="text-2xl font-semibold">{status.isSet ? 'Change your PIN' : 'Set your PIN'}</h1>
      <p className="mt-1 text-sm text-slate-600">
        The PIN authorises payments and private-key exports. Six digits, not an easy sequence such as 123456.
      </p>
      <div className="mt-6">
        {status.disabled && (
          <Notice tone="error">
            Your PIN is disabled after too many wrong tries.{' '}
            <Link href="/forgot-pin" className="underline">
              Reset it with your phone
            </Link>
            .
          </Notice>
        )}
        {status.lockedUntil && (
          <Notice tone="error">Too many wrong PINs: try again after {status.lockedUntil.toLocaleTimeString()}.</Notice>
        )}
        {status.isSet ? <ChangePinForm /> : <SetPinForm next={next} needsEmailCode={needsEmailCode} />}
      </div>
      {status.isSet && (
        <p className="mt-6 text-sm">
          <Link href="/forgot-pin" className="text-brand-600 underline underline-offset-4">
            Forgot your PIN?
          </Link>
        </p>
      )}
    </section>
  );
}
