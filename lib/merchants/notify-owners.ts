/**
 * E-mails every owner of a merchant about a change to its money or its people: owner and admin
 * changes, withdrawals, new production keys, live webhook endpoint changes. Sent after the change
 * committed; a mail that fails is logged and does not undo the change. The text names the change,
 * who made it and from where — never a secret.
 */
import 'server-only';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchantMembers, merchants, users } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { log } from '@/lib/log';
import { sendEmail } from '@/lib/notifications/send-email';

export async function notifyOwners(input: {
  merchantId: string;
  actorUserId: string | null;
  subject: string;
  text: string;
  ip?: string | null;
}): Promise<void> {
  try {
    const owners = await getDb()
      .select({ email: users.email, merchantName: merchants.name })
      .from(merchantMembers)
      .innerJoin(users, eq(users.id, merchantMembers.userId))
      .innerJoin(merchants, eq(merchants.id, merchantMembers.merchantId))
      .where(and(eq(merchantMembers.merchantId, input.merchantId), eq(merchantMembers.role, 'owner')));
    const [actor] = input.actorUserId
      ? await getDb().select({ email: users.email }).from(users).where(eq(users.id, input.actorUserId))
      : [];
    const by = input.actorUserId ? `by ${actor?.email ?? input.actorUserId}` : 'with an API key';
    for (const owner of owners) {
      if (!owner.email) continue;
      await sendEmail({
        to: owner.email,
        subject: `${owner.merchantName}: ${input.subject}`,
        text: `${input.text}\n\nDone ${by}${input.ip ? ` from ${input.ip}` : ''} at ${new Date().toISOString()}.\n\nIf you did not expect this, review the audit log at ${env().APP_URL}/dashboard/settings/audit-log and your members, keys and webhooks.`,
      });
    }
  } catch (error) {
    log.error('owner notification failed', { merchantId: input.merchantId, subject: input.subject, error });
  }
}
