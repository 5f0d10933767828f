import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ChargeDetails } from '@/components/dashboard/charge-details';
import { FulfilmentsSection } from '@/components/dashboard/fulfilments-section';
import { RefundsSection } from '@/components/dashboard/refunds-section';
import { listChargeRules } from '@/lib/contracts/list-contracts';
import { listChargeFulfilments } from '@/lib/contracts/load-fulfilment';
import { getChargeForDashboard } from '@/lib/charges/get-dashboard-charge';
import { isAppError } from '@/lib/errors';
import { dashboardMode } from '@/lib/merchants/dashboard-mode';
import { roleAllows } from '@/lib/merchants/permissions';
import { newRefundRequestId } from '@/lib/refunds/create-refund';
import { listRefunds } from '@/lib/refunds/list-refunds';
import { requireMember } from '@/lib/merchants/require-member';

export const metadata: Metadata = { title: 'Charge' };

/** One charge: items, totals, payments with transaction links, the timeline, its webhook deliveries, refunds and fulfilments. */
export default async function ChargePage({ params }: { params: Promise<{ chargeId: string }> }) {
  const { chargeId } = await params;
  const { user, membership } = await requireMember({ returnTo: `/dashboard/charges/${encodeURIComponent(chargeId)}` });
  const mode = await dashboardMode();
  const details = await getChargeForDashboard({ userId: user.id, merchantId: membership.merchant.id, mode, chargeId }).catch(
    (error: unknown) => {
      // Another merchant's charge, or one of the other mode, does not exist here.
      if (isAppError(error) && error.code === 'not_found') notFound();
      throw error;
    },
  );
  return (
    <main className="mx-auto flex max-w-5xl flex-col gap-6 px-4 py-8">
      <Link href="/dashboard/charges" className="text-sm text-brand-700 underline">
        ← Charges
      </Link>
      <ChargeDetails details={details} />
      <RefundsSection
        chargeId={details.charge.id}
        symbol={details.charge.tokenSymbol}
        refunds={await listRefunds({ merchantId: membership.merchant.id, mode, chargeId: details.charge.id })}
        canRefund={roleAllows(membership.role, 'charges.refund')}
        requestId={newRefundRequestId()}
      />
      <FulfilmentsSection
        chargeId={details.charge.id}
        isSucceeded={details.charge.status === 'succeeded'}
        fulfilments={await listChargeFulfilments({ merchantId: membership.merchant.id, mode, chargeId: details.charge.id })}
        rules={await listChargeRules({ merchantId: membership.merchant.id, mode })}
        canManage={roleAllows(membership.role, 'fulfilments.run')}
      />
    </main>
  );
}
