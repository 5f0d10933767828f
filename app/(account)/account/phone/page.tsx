import type { Metadata } from 'next';
import { LinkPhoneForm, UnlinkPhoneForm } from '@/components/account/phone-forms';
import { Notice } from '@/components/ui/card';
import { phoneLinkingEnabled } from '@/lib/accounts/phone-linking-enabled';
import { requireUser } from '@/lib/auth/session';
import { countryOptions } from '@/lib/geo/country';
import { requestCountry } from '@/lib/geo/request-country';

export const metadata: Metadata = { title: 'Phone' };

export default async function PhonePage({ searchParams }: { searchParams: Promise<{ linked?: string; unlinked?: string }> }) {
  const user = await requireUser({ returnTo: '/account/phone' });
  const params = await searchParams;
  // The country the number is dialled in when it has no +code: where the user appears to be, changeable.
  const { country } = await requestCountry();
  return (
    <section className="max-w-md">
      <h1 className="text-2xl font-semibold">Phone</h1>
      <p className="mt-1 text-sm text-slate-600">Optional. A linked phone is the only way to reset a forgotten PIN.</p>
      <div className="mt-6">
        {params.linked && <Notice tone="success">Your phone is linked.</Notice>}
        {params.unlinked && <Notice tone="success">Your phone is unlinked. A forgotten PIN can no longer be reset.</Notice>}
        {user.phoneE164 && user.phoneVerifiedAt ? (
          <div className="flex flex-col gap-4">
            <p>
              Linked:{' '}
              <span className="font-mono" data-testid="linked-phone">
                {user.phoneE164}
              </span>
            </p>
            <UnlinkPhoneForm />
          </div>
        ) : phoneLinkingEnabled() ? (
          <LinkPhoneForm needsPin={user.pinHash !== null} country={country} countries={countryOptions()} />
        ) : (
          <p className="rounded-lg bg-amber-50 p-4 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="phone-linking-off">
            Phone linking is off on this server: it has no SMS provider configured, so no code can be sent to a phone. A forgotten PIN
            cannot be reset here; contact support.
          </p>
        )}
      </div>
    </section>
  );
}
