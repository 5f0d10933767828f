/**
 * Solana keys for payments: per-charge deposit keypairs derived from the service's HD seed, and the
 * random reference keys that tag a Solana Pay transfer.
 *
 * Deposit keys follow SLIP-0010 for ed25519 (https://github.com/satoshilabs/slips/blob/master/slip-0010.md)
 * on the path m/44'/501'/{index}'/0', the one Phantom and Solflare use for account `index`: the same
 * seed imported in those wallets shows the same addresses, which is how funds are recovered by hand.
 * ed25519 has no public (non-hardened) derivation, so every step is hardened and each key needs the
 * seed: nothing like EVM's cached branch key exists here.
 *
 * The secret key is returned as seed ‖ public key (64 bytes), the format of lib/keyring/generate-keys.ts.
 */
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { getAddressDecoder } from '@solana/kit';

/** Indexes at and above 2^31 are hardened. */
const HARDENED_OFFSET = 0x8000_0000;
const SLIP10_ED25519_KEY = 'ed25519 seed';
/** DER prefix of a PKCS#8 ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
/** Deposit seeds are secrets of the service: at least 256 bits. */
const MIN_DEPOSIT_SEED_BYTES = 32;

export interface Slip10Node {
  /** The 32-byte ed25519 private key (the RFC 8032 seed). */
  privateKey: Buffer;
  chainCode: Buffer;
}

export interface SolanaDepositKey {
  /** Base58 address: the ed25519 public key. */
  address: string;
  /** seed ‖ public key, 64 bytes. Never logged, never stored in clear. */
  secretKey: Uint8Array;
  /** The derivation path, for support and recovery in a wallet. */
  path: string;
}

/**
 * SLIP-0010 ed25519 derivation of `path` ("m/44'/501'/0'/0'") from `seed` (16 to 64 bytes, as
 * BIP-32 allows). Every segment must be hardened.
 */
export function deriveSlip10Ed25519(seed: Uint8Array, path: string): Slip10Node {
  if (seed.length < 16 || seed.length > 64) throw new Error(`A SLIP-0010 seed is 16 to 64 bytes, got ${seed.length}.`);
  let node = splitHmac(createHmac('sha512', SLIP10_ED25519_KEY).update(seed).digest());
  for (const index of parseHardenedPath(path)) {
    const data = Buffer.alloc(37);
    node.privateKey.copy(data, 1); // 0x00 ‖ private key ‖ ser32(index)
    data.writeUInt32BE(index, 33);
    node = splitHmac(createHmac('sha512', node.chainCode).update(data).digest());
  }
  return node;
}

/** The 32-byte ed25519 public key of a 32-byte private key (node:crypto, no extra dependency). */
export function ed25519PublicKey(privateKey: Uint8Array): Buffer {
  if (privateKey.length !== 32) throw new Error(`An ed25519 private key is 32 bytes, got ${privateKey.length}.`);
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, privateKey]), format: 'der', type: 'pkcs8' });
  return Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url');
}

export function solanaDepositPath(index: number): string {
  return `m/44'/501'/${index}'/0'`;
}

/** The deposit keypair of derivation index `index` (0 ≤ index < 2^31). Deterministic: same seed and index, same key. */
export function deriveSolanaDepositKey(seed: Uint8Array, index: number): SolanaDepositKey {
  if (seed.length < MIN_DEPOSIT_SEED_BYTES)
    throw new Error(`The deposit HD seed must be at least ${MIN_DEPOSIT_SEED_BYTES} bytes, got ${seed.length}.`);
  if (!Number.isSafeInteger(index) || index < 0 || index >= HARDENED_OFFSET) throw new Error(`Invalid derivation index: ${index}.`);
  const path = solanaDepositPath(index);
  const { privateKey } = deriveSlip10Ed25519(seed, path);
  const publicKey = ed25519PublicKey(privateKey);
  return { address: getAddressDecoder().decode(publicKey), secretKey: new Uint8Array(Buffer.concat([privateKey, publicKey])), path };
}

/**
 * A fresh Solana Pay reference: the public key of a new random ed25519 keypair (the private half is
 * dropped). The spec only needs 32 random bytes; a real public key is chosen so that the reference
 * is also a valid on-curve address to every tool that checks one.
 */
export function newReferenceKey(): string {
  const { publicKey } = generateKeyPairSync('ed25519');
  return getAddressDecoder().decode(Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url'));
}

function splitHmac(digest: Buffer): Slip10Node {
  return { privateKey: digest.subarray(0, 32), chainCode: digest.subarray(32) };
}

/** "m/44'/501'/0'/0'" → hardened indexes; "h" is accepted for "'". */
function parseHardenedPath(path: string): number[] {
  const [root, ...segments] = path.split('/');
  if (root !== 'm') throw new Error(`A derivation path starts with "m": ${path}`);
  return segments.map((segment) => {
    const match = /^(\d+)['h]$/.exec(segment);
    if (!match) throw new Error(`ed25519 derivation is hardened only ("${segment}" in ${path}).`);
    const index = Number(match[1]);
    if (!Number.isSafeInteger(index) || index >= HARDENED_OFFSET) throw new Error(`Derivation index out of range in ${path}.`);
    return index + HARDENED_OFFSET;
  });
}
