import type { Metadata } from 'next';
import { PasskeysSection, RecoveryCodesSection, TotpSection } from '@/components/account/security-forms';
import { listPasskeys } from '@/lib/accounts/two-factor/passkeys';
import { secondFactorsOf } from '@/lib/accounts/two-factor/second-factor';
import { requireUser } from '@/lib/auth/session';

export const metadata: Metadata = { title: 'Security' };

/** Account → Security: two-factor sign-in (authenticator app, passkeys) and recovery codes. */
export default async function SecurityPage() {
  const user = await requireUser({ returnTo: '/account/security' });
  const factors = await secondFactorsOf(user.id);
  const keys = await listPasskeys(user.id);
  return (
    <div className="flex max-w-xl flex-col gap-8">
      <section>
        <h1 className="text-2xl font-semibold">Security</h1>
        <p className="mt-2 text-sm text-slate-600">
          Two-factor sign-in asks for a passkey or an authenticator-app code after your usual sign-in. Owners of a verified merchant need it
          before creating production keys or withdrawing.
        </p>
      </section>
      <section className="flex flex-col gap-3 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
        <h2 className="text-lg font-semibold">Authenticator app</h2>
        <TotpSection enabled={factors.totp} />
      </section>
      <section className="flex flex-col gap-3 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
        <h2 className="text-lg font-semibold">Passkeys</h2>
        <PasskeysSection passkeys={keys.map((key) => ({ id: key.id, name: key.name, createdAt: key.createdAt.toISOString() }))} />
      </section>
      {(factors.totp || factors.passkeys > 0) && (
        <section className="flex flex-col gap-3 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
          <h2 className="text-lg font-semibold">Recovery codes</h2>
          <RecoveryCodesSection left={factors.recoveryCodesLeft} />
        </section>
      )}
    </div>
  );
}
