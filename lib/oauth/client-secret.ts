/**
 * OAuth client secrets at rest: sealed under the wallet master key like webhook signing secrets
 * (lib/webhooks/secrets.ts), because oidc-provider compares the plaintext a client presents.
 *
 *   stored = "<masterKeyId>:" + base64(iv ‖ ciphertext ‖ tag),   aad = ["chargeport.oauth-client-secret.v1", clientId]
 */
import 'server-only';
import { randomBase62 } from '@/lib/ids';
import { masterKeyById, masterKeyRing, open, seal } from '@/lib/keyring/master-keys';

function aadFor(clientId: string): Buffer {
  return Buffer.from(JSON.stringify(['chargeport.oauth-client-secret.v1', clientId]), 'utf8');
}

/** A new secret: `cps_` and 43 base62 characters (~256 bits). */
export function newClientSecret(): string {
  return `cps_${randomBase62(43)}`;
}

export function sealClientSecret(clientId: string, secret: string): string {
  const { current } = masterKeyRing();
  return `${current.id}:${seal(current.key, Buffer.from(secret, 'utf8'), aadFor(clientId))}`;
}

export function openClientSecret(clientId: string, stored: string): string {
  const separator = stored.indexOf(':');
  const context = `The secret of OAuth app ${clientId}`;
  const key = masterKeyById(stored.slice(0, separator), context);
  return open(key, stored.slice(separator + 1), aadFor(clientId), context).toString('utf8');
}
