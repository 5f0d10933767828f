import { eq } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { webhookEndpoints, type WebhookEndpointRow } from '@/lib/db/schema';
import { getWebhookEndpoint, type WebhookOwner } from './get-webhook-endpoint';
import { WEBHOOK_LIMITS } from './schemas';
import { sealWebhookSecret } from './secrets';
import { newWebhookSecret } from './new-webhook-secret';

/**
 * A new signing secret, returned once. The current secret keeps signing next to it for
 * `overlapHours` (default 24), so the merchant can deploy the new one without missing a delivery:
 * meanwhile each delivery carries both signatures. One previous secret is kept: rotating again during
 * an overlap ends the older one at once.
 */
export async function rotateWebhookSecret({
  owner,
  endpointId,
  overlapHours = WEBHOOK_LIMITS.defaultOverlapHours,
  now = new Date(),
  db = getDb(),
}: {
  owner: WebhookOwner;
  endpointId: string;
  overlapHours?: number;
  now?: Date;
  /** The caller's transaction, if any (a savepoint is used inside it). */
  db?: DbOrTx;
}): Promise<{ endpoint: WebhookEndpointRow; secret: string }> {
  const secret = newWebhookSecret();
  const endpoint = await db.transaction(async (tx) => {
    const current = await getWebhookEndpoint({ owner, endpointId, db: tx, forUpdate: true });
    const [updated] = await tx
      .update(webhookEndpoints)
      .set({
        signingSecret: sealWebhookSecret(current.id, secret),
        previousSigningSecret: overlapHours > 0 ? current.signingSecret : null,
        previousSecretExpiresAt: overlapHours > 0 ? new Date(now.getTime() + overlapHours * 3_600_000) : null,
        updatedAt: now,
      })
      .where(eq(webhookEndpoints.id, current.id))
      .returning();
    return updated!;
  });
  return { endpoint, secret };
}
