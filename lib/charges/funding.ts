import type { PaymentRow } from '@/lib/db/schema';

/**
 * What a charge's payments add up to: seen (on chain, confirmed or not) and confirmed, in base units,
 * leaving out dropped payments (a rolled-back fork) and late ones (after the charge closed).
 */
export interface ChargeFunding {
  seen: bigint;
  confirmed: bigint;
  pendingCount: number;
}

export function fundingOf(rows: readonly PaymentRow[]): ChargeFunding {
  const live = rows.filter((p) => p.status !== 'dropped' && !p.isLate);
  return {
    seen: live.reduce((sum, p) => sum + p.amountBaseUnits, 0n),
    confirmed: live.filter((p) => p.status === 'confirmed').reduce((sum, p) => sum + p.amountBaseUnits, 0n),
    pendingCount: live.filter((p) => p.status === 'pending').length,
  };
}
