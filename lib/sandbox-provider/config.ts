/** Where Sandpiper Pay lives and whom it calls: it is served by this app but reaches Chargeport only over HTTP. */
import { ConfigError, env } from '@/lib/env';

/** Off in production unless ONRAMP_SANDBOX=true: then its pages and API answer 404. */
export function isSandboxProviderEnabled(): boolean {
  return env().ONRAMP_SANDBOX;
}

/** The API key partners authenticate with, which also signs the webhooks. */
export function sandboxProviderSecret(): string {
  const secret = env().SANDBOX_PROVIDER_SECRET;
  if (!secret) {
    throw new ConfigError('SANDBOX_PROVIDER_SECRET is not set. Run through `npm run dev` (it generates one) or set it (see .env.example).');
  }
  return secret;
}

function appUrl(): string {
  return env().APP_URL.replace(/\/+$/, '');
}

export function sandboxProviderBaseUrl(): string {
  return `${appUrl()}/sandbox-provider`;
}

/** The webhook URL the partner (Chargeport) registered with the provider. */
export function partnerWebhookUrl(): string {
  return `${appUrl()}/api/onramp/webhooks/sandbox`;
}
