import type { Metadata } from 'next';
import Link from 'next/link';
import { ForgotPinForm } from '@/components/account/phone-forms';
import { phoneLinkingEnabled } from '@/lib/accounts/phone-linking-enabled';
import { requireUser } from '@/lib/auth/session';

export const metadata: Metadata = { title: 'Forgot PIN' };

export default async function ForgotPinPage() {
  const user = await requireUser({ returnTo: '/forgot-pin' });
  const hasPhone = Boolean(user.phoneE164 && user.phoneVerifiedAt);
  return (
    <section className="max-w-md">
      <h1 className="text-2xl font-semibold">Forgot your PIN?</h1>
      {!phoneLinkingEnabled() ? (
        <p className="mt-3 rounded-lg bg-amber-50 p-4 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="phone-linking-off">
          A PIN is reset with a code sent to a linked phone, and this server sends no SMS (no SMS provider is configured). Your funds stay
          in your wallets; contact support.
        </p>
      ) : hasPhone ? (
        <>
          <p className="mt-1 text-sm text-slate-600">We send a code to your linked phone ({user.phoneE164}); with it you set a new PIN.</p>
          <div className="mt-6">
            <ForgotPinForm />
          </div>
        </>
      ) : (
        <p className="mt-3 rounded-lg bg-amber-50 p-4 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="no-phone">
          No phone is linked to your account, and a linked phone is the only way to reset a PIN. Your funds stay in your wallets; you cannot
          pay or export keys until the PIN is reset.{' '}
          <Link href="/account/phone" className="underline">
            Link a phone
          </Link>{' '}
          if you still know your PIN, or contact support.
        </p>
      )}
    </section>
  );
}
