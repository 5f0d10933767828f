/** Every owner is e-mailed when a production key is created or rolled (after the commit): it moves real money. */
import { notifyOwners } from '@/lib/merchants/notify-owners';
import type { MemberActor } from '@/lib/merchants/permissions';

export async function notifyNewProductionKey(input: MemberActor, what: string): Promise<void> {
  await notifyOwners({
    merchantId: input.merchantId,
    actorUserId: input.userId,
    ip: input.ip,
    subject: 'new production API key',
    text: what,
  });
}
