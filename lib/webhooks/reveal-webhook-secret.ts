import { getDb, type DbOrTx } from '@/lib/db/client';
import { getWebhookEndpoint, type WebhookOwner } from './get-webhook-endpoint';
import { openWebhookSecret } from './secrets';

/**
 * The endpoint's signing secret in plaintext, for the dashboard's "Reveal" (behind the merchant's
 * session, never over the API key routes, which show a secret only when they create it).
 */
export async function revealWebhookSecret({
  owner,
  endpointId,
  now = new Date(),
  db = getDb(),
}: {
  owner: WebhookOwner;
  endpointId: string;
  now?: Date;
  db?: DbOrTx;
}): Promise<{ secret: string; previous: { secret: string; expiresAt: Date } | null }> {
  const endpoint = await getWebhookEndpoint({ owner, endpointId, db });
  const previousOpen = endpoint.previousSigningSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now;
  return {
    secret: openWebhookSecret(endpoint.id, endpoint.signingSecret),
    previous: previousOpen
      ? { secret: openWebhookSecret(endpoint.id, endpoint.previousSigningSecret!), expiresAt: endpoint.previousSecretExpiresAt! }
      : null,
  };
}
