/**
 * The wallet master-key ring and the AES-256-GCM primitives the envelope uses.
 *
 *  - The current master key (WALLET_MASTER_KEY) seals new data keys; earlier keys
 *    (WALLET_MASTER_KEYS_PREVIOUS) are kept only to open values not yet re-sealed by rotateMasterKey (lib/keyring/).
 *  - A key's id is derived from the key itself ('mk_' + first 16 hex of SHA-256), so it is stable across
 *    processes, reveals nothing usable, and a row's `masterKeyId` names exactly which key opens it.
 *  - Sealed format: base64(iv ‖ ciphertext ‖ tag), 12-byte random IV, 16-byte tag. Every seal carries
 *    associated data (AAD) chosen by the caller, so a ciphertext opens only in the context it was made for.
 */
import 'server-only';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { env, requireSecret } from '@/lib/env';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** A wallet secret could not be opened: wrong or missing master key, or a modified/swapped ciphertext. */
export class WalletKeyError extends Error {
  override name = 'WalletKeyError';
}

interface MasterKey {
  id: string;
  key: Buffer;
}

export interface MasterKeyRing {
  current: MasterKey;
  /** Every key that may open a data key, the current one included, by id. */
  byId: ReadonlyMap<string, Buffer>;
}

export function masterKeyIdOf(key: Buffer): string {
  return `mk_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
}

function decodeKey(base64: string, name: string): Buffer {
  const key = Buffer.from(base64, 'base64');
  // lib/env.ts validates this already; re-check so a bad key can never reach the cipher.
  if (key.length !== KEY_BYTES) throw new WalletKeyError(`${name} must be ${KEY_BYTES} bytes, base64 (e.g. \`openssl rand -base64 32\`).`);
  return key;
}

let cachedRing: { source: string; ring: MasterKeyRing } | undefined;

/** The key ring from the environment (re-read when the configuration changes, e.g. in tests). */
export function masterKeyRing(): MasterKeyRing {
  const currentBase64 = requireSecret('WALLET_MASTER_KEY');
  const previousBase64 = env().WALLET_MASTER_KEYS_PREVIOUS;
  const source = [currentBase64, ...previousBase64].join(',');
  if (cachedRing?.source === source) return cachedRing.ring;

  const currentKey = decodeKey(currentBase64, 'WALLET_MASTER_KEY');
  const current: MasterKey = { id: masterKeyIdOf(currentKey), key: currentKey };
  const byId = new Map<string, Buffer>([[current.id, currentKey]]);
  for (const base64 of previousBase64) {
    const key = decodeKey(base64, 'each key of WALLET_MASTER_KEYS_PREVIOUS');
    byId.set(masterKeyIdOf(key), key);
  }
  const ring: MasterKeyRing = { current, byId };
  cachedRing = { source, ring };
  return ring;
}

/** The master key with this id, or an error that says how to fix the configuration. */
export function masterKeyById(masterKeyId: string, context: string): Buffer {
  const ring = masterKeyRing();
  const key = ring.byId.get(masterKeyId);
  if (!key) {
    throw new WalletKeyError(
      `${context} is sealed with master key ${masterKeyId}, which is not configured (current key: ${ring.current.id}` +
        `${ring.byId.size > 1 ? `; previous: ${[...ring.byId.keys()].filter((id) => id !== ring.current.id).join(', ')}` : ''}). ` +
        `Add that key to WALLET_MASTER_KEYS_PREVIOUS (comma-separated base64) and run the master-key rotation to re-seal it.`,
    );
  }
  return key;
}

/** AES-256-GCM with a random IV; returns base64(iv ‖ ciphertext ‖ tag). */
export function seal(key: Buffer, plaintext: Uint8Array, aad: Buffer): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64');
}

/** Opens what `seal` produced with the same key and AAD; any change to either fails. */
export function open(key: Buffer, sealed: string, aad: Buffer, context: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new WalletKeyError(`${context}: the sealed value is truncated.`);
  const iv = bytes.subarray(0, IV_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  const ciphertext = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    throw new WalletKeyError(
      `${context}: authentication failed. The sealed value was modified, belongs to another wallet, or was sealed with a different key.`,
    );
  }
}

export function newDataKey(): Buffer {
  return randomBytes(KEY_BYTES);
}
