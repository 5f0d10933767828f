/**
 * The e-mail a merchant gets when one of its endpoints becomes `failing` (an event used up every
 * retry). Runs from a durable job enqueued in the transaction that flipped the status, so the
 * e-mail is neither lost by a crash nor sent for every failed event.
 */
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchants, webhookEndpoints } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { sendEmail } from '@/lib/notifications/send-email';
import { MAX_DELIVERY_ATTEMPTS } from './next-attempt-delay';

/** Returns whether an e-mail went out (not when the endpoint recovered or was deleted meanwhile). */
export async function notifyFailingEndpoint(endpointId: string): Promise<boolean> {
  const [row] = await getDb()
    .select({ endpoint: webhookEndpoints, email: merchants.email, merchantName: merchants.name })
    .from(webhookEndpoints)
    .innerJoin(merchants, eq(merchants.id, webhookEndpoints.merchantId))
    .where(eq(webhookEndpoints.id, endpointId));
  if (!row || row.endpoint.status !== 'failing') return false;
  const { endpoint } = row;
  const dashboard = `${env().APP_URL.replace(/\/+$/, '')}/dashboard`;
  await sendEmail({
    to: row.email,
    subject: `Webhook endpoint failing: ${endpoint.url}`,
    text: [
      `Hello ${row.merchantName},`,
      '',
      `Chargeport could not deliver an event to your ${endpoint.mode}-mode webhook endpoint ${endpoint.url} (${endpoint.id})`,
      `after ${MAX_DELIVERY_ATTEMPTS} attempts over about three days, so the endpoint is now marked as failing.`,
      '',
      'We keep sending new events to it, and it is marked active again after its next successful delivery.',
      'Events it missed can be fetched with GET /api/events (filter by type, page with starting_after).',
      '',
      `Check that the endpoint answers 2xx within 10 seconds, then review it in your dashboard: ${dashboard}`,
    ].join('\n'),
  });
  return true;
}
