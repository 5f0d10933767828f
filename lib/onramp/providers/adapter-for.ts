/**
 * The adapter that speaks for each provider on this deployment, chosen by configuration:
 *
 *  - a provider whose credentials are set uses its real adapter (MoonPay, Transak);
 *  - otherwise, with ONRAMP_SANDBOX on (default outside production), the sandbox provider plays it:
 *    same registry facts, same order flow, its own payment screen and signed webhooks on loopback;
 *  - otherwise the provider is not offered.
 *
 * Nothing outside this file knows which of the three it got.
 */
import { env } from '@/lib/env';
import { createMoonPayAdapter } from './moonpay';
import { transakAdapterFromEnv } from './transak-adapter-from-env';
import { sandboxAdapterFor } from './sandbox-adapter';
import type { OnrampProviderAdapter, OnrampProviderId } from './types';

const cache = new Map<OnrampProviderId, OnrampProviderAdapter | null>();
const playedBySandbox = new Set<OnrampProviderId>();

export function adapterFor(providerId: OnrampProviderId, displayName: string): OnrampProviderAdapter | undefined {
  if (!cache.has(providerId)) cache.set(providerId, buildAdapter(providerId, displayName) ?? null);
  return cache.get(providerId) ?? undefined;
}

/** Whether the sandbox provider stands in for this provider here (its webhooks arrive on the sandbox's path). */
export function isPlayedBySandbox(providerId: OnrampProviderId, displayName: string): boolean {
  adapterFor(providerId, displayName);
  return playedBySandbox.has(providerId);
}

function buildAdapter(providerId: OnrampProviderId, displayName: string): OnrampProviderAdapter | undefined {
  const config = env();
  if (providerId === 'moonpay' && config.MOONPAY_PUBLISHABLE_KEY && config.MOONPAY_SECRET_KEY && config.MOONPAY_WEBHOOK_KEY) {
    return createMoonPayAdapter({
      environment: config.MOONPAY_ENVIRONMENT,
      publishableKey: config.MOONPAY_PUBLISHABLE_KEY,
      secretKey: config.MOONPAY_SECRET_KEY,
      webhookKey: config.MOONPAY_WEBHOOK_KEY,
    });
  }
  if (providerId === 'transak') {
    const transak = transakAdapterFromEnv();
    if (transak) return transak;
  }
  const sandbox = sandboxAdapterFor(providerId, displayName);
  if (sandbox) playedBySandbox.add(providerId);
  return sandbox;
}
