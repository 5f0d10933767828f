/**
 * Webhook signing secrets at rest. The dashboard must be able to reveal a secret, so it is sealed
 * (AES-256-GCM under the wallet master key, lib/keyring/master-keys.ts), never stored in plaintext:
 *
 *   stored = "<masterKeyId>:" + base64(iv ‖ ciphertext ‖ tag),   aad = ["chargeport.webhook-secret.v1", endpointId]
 *
 * The AAD binds a sealed secret to its endpoint: copied into another row it does not open. The master
 * key id says which key opens it, so secrets sealed before a master-key rotation still open while the
 * old key is in WALLET_MASTER_KEYS_PREVIOUS; the rotation (lib/admin/rotate-master-key.ts) re-seals them.
 */
import 'server-only';
import { masterKeyById, masterKeyRing, open, seal } from '@/lib/keyring/master-keys';

function aadFor(endpointId: string): Buffer {
  return Buffer.from(JSON.stringify(['chargeport.webhook-secret.v1', endpointId]), 'utf8');
}

export function sealWebhookSecret(endpointId: string, secret: string): string {
  const { current } = masterKeyRing();
  return `${current.id}:${seal(current.key, Buffer.from(secret, 'utf8'), aadFor(endpointId))}`;
}

/** The `whsec_…` secret; throws WalletKeyError when the key is missing or the value was tampered with. */
export function openWebhookSecret(endpointId: string, stored: string): string {
  const separator = stored.indexOf(':');
  const masterKeyId = stored.slice(0, separator);
  const context = `The signing secret of webhook endpoint ${endpointId}`;
  const key = masterKeyById(masterKeyId, context);
  return open(key, stored.slice(separator + 1), aadFor(endpointId), context).toString('utf8');
}

/**
 * Secrets opened for signing, by endpoint and sealed value (a rotation seals a new value, so it is never
 * served stale): opening one per attempt — AES-GCM and a key lookup — added up at hundreds a second.
 */
const openedForSigning = new Map<string, string>();
const OPENED_KEPT = 1_000;

function openForSigning(endpointId: string, sealed: string): string {
  const key = `${endpointId}:${sealed}`;
  let secret = openedForSigning.get(key);
  if (secret === undefined) {
    if (openedForSigning.size >= OPENED_KEPT) openedForSigning.clear();
    secret = openWebhookSecret(endpointId, sealed);
    openedForSigning.set(key, secret);
  }
  return secret;
}

/** Every secret that signs now, newest first: the current one, and the previous one during its overlap. */
export function signingSecretsOf(
  endpoint: { id: string; signingSecret: string; previousSigningSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date = new Date(),
): string[] {
  const secrets = [openForSigning(endpoint.id, endpoint.signingSecret)];
  if (endpoint.previousSigningSecret && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(openForSigning(endpoint.id, endpoint.previousSigningSecret));
  }
  return secrets;
}
