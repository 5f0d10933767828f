/**
 * What Sandpiper Pay does after the buyer has paid or been declined, once the screen has answered
 * (the payment screen schedules it with next/server `after()`):
 *   paid     → webhook PROCESSING, tokens sent to the wallet, webhook COMPLETED with the tx hash
 *              (or FAILED with the reason when the delivery did not go through);
 *   declined → webhook FAILED with the reason.
 * It runs in the web process that took the payment: a restart in between leaves the session
 * processing (a real provider would resume it from a job queue; the sandbox does not need to).
 */
import { and, eq, isNull } from 'drizzle-orm';
import type { ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { sandboxProviderSessions } from '@/lib/db/schema/sandbox-provider';
import { deliverTokens } from './deliver-tokens';
import { sendOrderWebhook, type WebhookOptions } from './send-webhook';
import { findSession } from './find-session';
import { transitionSession } from './transition-session';

export async function fulfilSession(sessionId: string, options: WebhookOptions = {}): Promise<void> {
  const session = await findSession(sessionId);
  if (!session) return;
  if (session.status === 'failed') {
    await sendOrderWebhook(session, options);
    return;
  }
  if (session.status !== 'processing') return;

  // Claim the delivery: whoever sets delivery_started_at first sends the tokens, anyone else stops.
  const t = sandboxProviderSessions;
  const [claimed] = await getDb()
    .update(t)
    .set({ deliveryStartedAt: new Date() })
    .where(and(eq(t.id, sessionId), eq(t.status, 'processing'), isNull(t.deliveryStartedAt)))
    .returning();
  if (!claimed) return;

  // PROCESSING goes out first, but the delivery does not wait for the partner to acknowledge it;
  // COMPLETED / FAILED waits for it, so the partner never hears them out of order from us.
  const processingAnnounced = sendOrderWebhook(claimed, options);
  const delivery = await deliverTokens({
    chain: claimed.chain as ChainName,
    tokenSymbol: claimed.tokenSymbol,
    walletAddress: claimed.walletAddress,
    baseUnits: claimed.cryptoBaseUnits,
  });
  const finished = delivery.ok
    ? await transitionSession({ sessionId, from: ['processing'], to: 'completed', set: { txHash: delivery.txHash } })
    : await transitionSession({ sessionId, from: ['processing'], to: 'failed', set: { failureReason: delivery.reason } });
  await processingAnnounced;
  if (finished) await sendOrderWebhook(finished, options);
}
