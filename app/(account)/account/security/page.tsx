import type { Metadata } from 'next';
import { PasskeysSection, RecoveryCodesSection, TotpSection } from '@/components/account/security-forms';
import { factorChangeMethod } from '@/lib/accounts/two-factor/factor-change-proof';
import { factorUsableFrom, formatUsableFrom } from '@/lib/accounts/two-factor/factor-usable-from';
import { listPasskeys } from '@/lib/accounts/two-factor/passkeys';
import { secondFactorsOf } from '@/lib/accounts/two-factor/second-factor';
import { requireUser } from '@/lib/auth/session';
import { env } from '@/lib/env';

export const metadata: Metadata = { title: 'Security' };

/** "Usable for payments from …" while a factor is younger than FACTOR_COOLING_HOURS; undefined once it counts. */
function coolingUntil(addedAt: Date | null, now: Date): string | undefined {
  if (!addedAt) return undefined;
  const usable = factorUsableFrom(addedAt);
  return usable > now ? formatUsableFrom(usable) : undefined;
}

/**
 * Account → Security: two-factor sign-in (authenticator app, passkeys) and recovery codes. Every change
 * asks for the PIN or a passkey (or an e-mail code for an account with neither) and e-mails the account;
 * a new factor shows when it starts to count for live payments.
 */
export default async function SecurityPage() {
  const user = await requireUser({ returnTo: '/account/security' });
  const now = new Date();
  const coolingHours = env().FACTOR_COOLING_HOURS;
  const [factors, keys, proof] = await Promise.all([secondFactorsOf(user.id), listPasskeys(user.id), factorChangeMethod(user.id)]);
  return (
    <div className="flex max-w-xl flex-col gap-8">
      <section>
        <h1 className="text-2xl font-semibold">Security</h1>
        <p className="mt-2 text-sm text-slate-600">
          Two-factor sign-in asks for a passkey or an authenticator-app code after your usual sign-in. Owners of a verified merchant need it
          before creating production keys or withdrawing. Adding or removing one is confirmed with your PIN, a passkey, or (for an account
          with neither) a code e-mailed to you, and every change is e-mailed to you.
          {coolingHours > 0 &&
            ` A new passkey or app signs you in at once, but confirms live payments and ownership changes only after ${coolingHours} hours.`}
        </p>
      </section>
      <section className="flex flex-col gap-3 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
        <h2 className="text-lg font-semibold">Authenticator app</h2>
        <TotpSection enabled={factors.totp} proof={proof} usableFrom={coolingUntil(factors.totpEnabledAt, now)} />
      </section>
      <section className="flex flex-col gap-3 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
        <h2 className="text-lg font-semibold">Passkeys</h2>
        <PasskeysSection
          proof={proof}
          passkeys={keys.map((key) => ({
            id: key.id,
            name: key.name,
            createdAt: key.createdAt.toISOString(),
            usableFrom: coolingUntil(key.createdAt, now),
          }))}
        />
      </section>
      {(factors.totp || factors.passkeys > 0) && (
        <section className="flex flex-col gap-3 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200">
          <h2 className="text-lg font-semibold">Recovery codes</h2>
          <RecoveryCodesSection left={factors.recoveryCodesLeft} proof={proof} />
        </section>
      )}
    </div>
  );
}
