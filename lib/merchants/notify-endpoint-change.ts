import 'server-only';
import type { ApiKeyMode } from '@/lib/db/schema';
import { notifyOwners } from '@/lib/merchants/notify-owners';

export type EndpointChange = 'created' | 'updated' | 'deleted' | 'secret rotated';

/**
 * Live webhook endpoints carry live payment events (and a merchant's fulfilment acts on them): every
 * owner hears of each change, made in the dashboard or with a secret key. Test-mode endpoints carry
 * test data only and change often while integrating: no mail.
 */
export async function notifyWebhookEndpointChange(input: {
  merchantId: string;
  mode: ApiKeyMode;
  actorUserId: string | null;
  ip?: string | null;
  change: EndpointChange;
  endpoint: { id: string; url: string };
}): Promise<void> {
  if (input.mode !== 'live') return;
  await notifyOwners({
    merchantId: input.merchantId,
    actorUserId: input.actorUserId,
    ip: input.ip,
    subject: `live webhook endpoint ${input.change}`,
    text: `The live webhook endpoint ${input.endpoint.id} (${input.endpoint.url}) was ${input.change}.`,
  });
}
