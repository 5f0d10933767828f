/**
 * Key generation for the two wallet families, CSPRNG only:
 *
 *  - EVM: a secp256k1 private key from viem (crypto.getRandomValues); address is EIP-55 checksummed.
 *    Exported as 0x-prefixed hex, the format MetaMask and other EVM wallets import.
 *  - Solana: an ed25519 keypair from node:crypto; address is the base58 of the 32-byte public key.
 *    The stored and exported secret is the 64-byte seed ‖ public key, base58 on export: the format
 *    Phantom and `solana-keygen` import.
 *
 * These are plain wallets (an EOA and an ed25519 keypair), not smart accounts.
 */
import 'server-only';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { getAddressDecoder, getBase58Decoder } from '@solana/kit';
import { bytesToHex, hexToBytes } from 'viem';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { WalletFamily } from '@/lib/db/schema';

export interface GeneratedWalletKey {
  family: WalletFamily;
  address: string;
  /** Raw secret bytes: 32 for EVM, 64 (seed ‖ public key) for Solana. Never logged, never stored in clear. */
  privateKey: Uint8Array;
}

export type PrivateKeyFormat = 'hex' | 'base58';

const SOLANA_SECRET_BYTES = 64;
const ED25519_SEED_BYTES = 32;
/** DER prefix of a PKCS#8 ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function generateWalletKey(family: WalletFamily): GeneratedWalletKey {
  switch (family) {
    case 'evm': {
      const privateKey = generatePrivateKey();
      return { family, address: privateKeyToAddress(privateKey), privateKey: hexToBytes(privateKey) };
    }
    case 'solana': {
      const { privateKey } = generateKeyPairSync('ed25519');
      const jwk = privateKey.export({ format: 'jwk' });
      const seed = Buffer.from(jwk.d!, 'base64url');
      const publicKey = Buffer.from(jwk.x!, 'base64url');
      return { family, address: solanaAddressOfPublicKey(publicKey), privateKey: new Uint8Array(Buffer.concat([seed, publicKey])) };
    }
  }
}

/**
 * The address a secret really controls, derived from the secret alone (for Solana from the seed, not
 * from the public half stored next to it). Used to check a decrypted key before it is handed out.
 */
export function addressOfPrivateKey(family: WalletFamily, privateKey: Uint8Array): string {
  switch (family) {
    case 'evm':
      if (privateKey.length !== 32) throw new Error(`An EVM private key is 32 bytes, got ${privateKey.length}.`);
      return privateKeyToAddress(bytesToHex(privateKey));
    case 'solana': {
      if (privateKey.length !== SOLANA_SECRET_BYTES)
        throw new Error(`A Solana secret key is ${SOLANA_SECRET_BYTES} bytes, got ${privateKey.length}.`);
      const seed = privateKey.subarray(0, ED25519_SEED_BYTES);
      const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
      const derived = Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url');
      if (!derived.equals(privateKey.subarray(ED25519_SEED_BYTES)))
        throw new Error('The Solana secret key does not match its public half.');
      return solanaAddressOfPublicKey(derived);
    }
  }
}

export function formatPrivateKey(family: WalletFamily, privateKey: Uint8Array): { privateKey: string; format: PrivateKeyFormat } {
  switch (family) {
    case 'evm':
      return { privateKey: bytesToHex(privateKey), format: 'hex' };
    case 'solana':
      return { privateKey: getBase58Decoder().decode(privateKey), format: 'base58' };
  }
}

function solanaAddressOfPublicKey(publicKey: Uint8Array): string {
  return getAddressDecoder().decode(publicKey);
}
