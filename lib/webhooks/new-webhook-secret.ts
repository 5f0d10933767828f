import { randomBytes } from 'node:crypto';
import { WEBHOOK_SECRET_PREFIX } from './sign-webhook';

/** Bytes of key material in a new secret. Standard Webhooks allows 24–64; 32 matches the HMAC-SHA256 block use. */
const NEW_SECRET_BYTES = 32;

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. Shown to the merchant once. */
export function newWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(NEW_SECRET_BYTES).toString('base64')}`;
}
