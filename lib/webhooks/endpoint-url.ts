import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import type { ApiKeyMode } from '@/lib/db/schema';
import { checkWebhookUrl } from './check-webhook-url';

/**
 * The URL an endpoint may have in `mode`, normalised, or `invalid_webhook_url` saying what to fix.
 * A static check (scheme, credentials, IP literals, localhost); names are resolved and checked
 * again at every delivery, since DNS can change after the endpoint is saved.
 */
export function acceptEndpointUrl(raw: string, mode: ApiKeyMode): string {
  const checked = checkWebhookUrl(raw, mode, { allowLoopback: env().WEBHOOKS_ALLOW_LOOPBACK });
  if (!checked.ok) throw new AppError('invalid_webhook_url', checked.message, { param: 'url' });
  return checked.url.href;
}
