import { inArray } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { depositAddresses } from '@/lib/db/schema';
import { releaseDepositAddresses } from '@/lib/jobs/release-deposit-addresses';

/**
 * The deposit addresses of `chargeIds` back in their merchant's pool (ADR 0038): their late-payment watch cut short,
 * the release job run. Returns how many addresses the job released.
 */
export async function releaseLeasesNow(chargeIds: string[]): Promise<number> {
  await getDb()
    .update(depositAddresses)
    .set({ watchUntil: new Date(Date.now() - 1_000) })
    .where(inArray(depositAddresses.chargeId, chargeIds));
  const { released } = await releaseDepositAddresses({ batch: 1_000 });
  return released;
}
