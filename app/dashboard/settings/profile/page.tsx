import type { Metadata } from 'next';
import { OnrampLinkKeyForm } from '@/components/dashboard/onramp-link-key-form';
import { ProfileForm } from '@/components/dashboard/profile-form';
import { RequestVerificationButton } from '@/components/dashboard/request-verification-button';
import { roleAllows } from '@/lib/merchants/permissions';
import { VERIFICATION_STATUS_LABELS, verificationStatus } from '@/lib/merchants/verification';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'Profile' };

export default async function ProfilePage() {
  const { membership } = await requireMember({ returnTo: '/dashboard/settings/profile' });
  const { merchant } = membership;
  const canEdit = roleAllows(membership.role, 'profile.manage');
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-8 px-4 py-8">
      <section className="flex flex-col gap-3">
        <h1 className="text-xl font-semibold">Profile</h1>
        {!canEdit && (
          <p className="text-sm text-slate-600">Your role ({membership.role}) can read the profile; owners and admins edit it.</p>
        )}
        <ProfileForm
          initial={{ name: merchant.name, logoUrl: merchant.logoUrl ?? '', supportEmail: merchant.supportEmail ?? '' }}
          canEdit={canEdit}
        />
      </section>
      <section className="flex max-w-md flex-col gap-2" aria-labelledby="verification-heading">
        <h2 id="verification-heading" className="font-semibold">
          Business verification
        </h2>
        <p className="text-sm text-slate-600">
          Status: <strong data-testid="profile-verification-status">{VERIFICATION_STATUS_LABELS[verificationStatus(merchant)]}</strong>.
          Production keys and direct transfers need it; a verified business that changes its name is reviewed again before new production
          keys and direct transfers (its existing keys keep working).
        </p>
        {!merchant.verifiedAt && canEdit && <RequestVerificationButton requested={merchant.verificationRequestedAt !== null} />}
      </section>
      <section className="flex max-w-md flex-col gap-2" aria-labelledby="onramp-links-heading">
        <h2 id="onramp-links-heading" className="font-semibold">
          On-ramp links
        </h2>
        <p className="text-sm text-slate-600">
          Sign your on-ramp links with this key (HMAC-SHA256, see the README) and buyers see your wallet label as verified. Unsigned labels
          are shown as unverified. Your merchant id: <code>{merchant.id}</code>.{' '}
          {merchant.onrampLinkKeyCreatedAt ? `Key created ${merchant.onrampLinkKeyCreatedAt.toISOString().slice(0, 10)}.` : 'No key yet.'}
        </p>
        <OnrampLinkKeyForm hasKey={merchant.onrampLinkKey !== null} canEdit={canEdit} />
      </section>
    </main>
  );
}
