/**
 * The sandbox provider standing in for a registry provider that has no credentials here (ONRAMP_SANDBOX).
 * The buyer sees the provider's name and facts; the purchase runs through the sandbox's own screen,
 * webhooks and delivery. The sandbox signs every webhook with one secret and posts them to
 * /api/onramp/webhooks/sandbox, so that path verifies with the plain sandbox adapter and the order,
 * found by our id, tells which provider it was played as (see webhookAdapterFor).
 */
import { env } from '@/lib/env';
import { createSandboxAdapter } from './sandbox';
import type { OnrampProviderAdapter, OnrampProviderId } from './types';

export const SANDBOX_WEBHOOK_PATH_ID = 'sandbox';

function sandboxSettings() {
  const config = env();
  if (!config.ONRAMP_SANDBOX || !config.SANDBOX_PROVIDER_SECRET) return undefined;
  return { baseUrl: config.APP_URL, secret: config.SANDBOX_PROVIDER_SECRET };
}

export function sandboxAdapterFor(providerId: OnrampProviderId, displayName: string): OnrampProviderAdapter | undefined {
  const settings = sandboxSettings();
  if (!settings) return undefined;
  const sandbox = createSandboxAdapter({ ...settings, standingInFor: displayName });
  return {
    ...sandbox,
    id: providerId,
    displayName,
    async verifyWebhook(request) {
      const result = await sandbox.verifyWebhook(request);
      return result.ok ? { ok: true, update: { ...result.update, providerId } } : result;
    },
  };
}

/** The plain sandbox adapter, for webhooks arriving at /api/onramp/webhooks/sandbox. */
export function sandboxWebhookAdapter(): OnrampProviderAdapter | undefined {
  const settings = sandboxSettings();
  return settings ? createSandboxAdapter(settings) : undefined;
}
