import type { Metadata } from 'next';
import { ApiKeysTable, CreateKeyForm } from '@/components/dashboard/api-keys';
import { listApiKeys } from '@/lib/api-keys/list-api-keys';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { roleAllows } from '@/lib/merchants/permissions';
import { verificationStatus } from '@/lib/merchants/verification';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'API Keys' };

export default async function ApiKeysPage() {
  const { user, membership } = await requireMember({ returnTo: '/dashboard/settings/api-keys' });
  const mode = await dashboardMode();
  const keys = await listApiKeys({ userId: user.id, merchantId: membership.merchant.id, mode });
  const canManage = roleAllows(membership.role, 'api_keys.manage');
  const liveLocked = mode === 'live' && !membership.merchant.verifiedAt;
  const liveReviewPending = mode === 'live' && verificationStatus(membership.merchant) === 'review_required';
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-8">
      <div>
        <h1 className="text-xl font-semibold">API Keys ({mode === 'test' ? 'test' : 'live'})</h1>
        <p className="mt-1 text-sm text-slate-600">
          Secret keys create charges from your server (header <code>x-api-key</code>). Publishable keys are safe in a browser and can only
          create and read charges. A key is shown once, when it is created.
        </p>
      </div>
      {liveLocked ? (
        <p className="rounded-xl bg-white p-5 text-sm text-slate-700 ring-1 ring-slate-200">
          Production keys are issued after business verification. Request it on the Overview tab.
        </p>
      ) : (
        <>
          <ApiKeysTable keys={keys} canManage={canManage} />
          {canManage && liveReviewPending ? (
            <p
              className="max-w-md rounded-xl bg-amber-50 p-4 text-sm text-amber-900 ring-1 ring-amber-200"
              data-testid="live-review-pending"
            >
              Your business name changed after verification: new production keys wait until support reviews it. The keys above keep working.
            </p>
          ) : canManage ? (
            <CreateKeyForm live={mode === 'live'} />
          ) : (
            <p className="text-sm text-slate-600" data-testid="keys-read-only">
              Your role ({membership.role}) can see keys but not create, roll or revoke them.
            </p>
          )}
        </>
      )}
    </main>
  );
}
