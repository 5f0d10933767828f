/**
 * Envelope encryption of one wallet's private key (see lib/db/schema/wallets.ts):
 *
 *   sealedPrivateKey = AES-256-GCM(dataKey,   privateKey, aad = wallet + "private-key")
 *   sealedDataKey    = AES-256-GCM(masterKey, dataKey,    aad = wallet + "data-key")
 *
 * Both AADs bind the ciphertext to the wallet's id, family and address, so sealed values copied or swapped
 * between rows fail to open. Rotation re-seals only the data key; the private key ciphertext never changes.
 */
import 'server-only';
import type { WalletFamily } from '@/lib/db/schema';
import { masterKeyById, masterKeyRing, newDataKey, open, seal } from './master-keys';

export interface WalletIdentity {
  id: string;
  family: WalletFamily;
  address: string;
}

export interface SealedWalletKey {
  sealedPrivateKey: string;
  sealedDataKey: string;
  masterKeyId: string;
}

type Purpose = 'private-key' | 'data-key';

function aadFor(wallet: WalletIdentity, purpose: Purpose): Buffer {
  // JSON keeps the parts unambiguous (no separator can be smuggled inside an id or address).
  return Buffer.from(JSON.stringify(['chargeport.wallet.v1', purpose, wallet.id, wallet.family, wallet.address]), 'utf8');
}

export function sealWalletKey(wallet: WalletIdentity, privateKey: Uint8Array): SealedWalletKey {
  const { current } = masterKeyRing();
  const dataKey = newDataKey();
  try {
    return {
      sealedPrivateKey: seal(dataKey, privateKey, aadFor(wallet, 'private-key')),
      sealedDataKey: seal(current.key, dataKey, aadFor(wallet, 'data-key')),
      masterKeyId: current.id,
    };
  } finally {
    dataKey.fill(0);
  }
}

/** The raw private key. Throws WalletKeyError when the master key is missing or anything was tampered with. */
export function openWalletKey(wallet: WalletIdentity & SealedWalletKey): Buffer {
  const dataKey = openDataKey(wallet);
  try {
    return open(dataKey, wallet.sealedPrivateKey, aadFor(wallet, 'private-key'), `The private key of wallet ${wallet.id}`);
  } finally {
    dataKey.fill(0);
  }
}

/** The data key re-sealed under the current master key (private key ciphertext untouched). */
export function resealDataKey(wallet: WalletIdentity & Pick<SealedWalletKey, 'sealedDataKey' | 'masterKeyId'>): {
  sealedDataKey: string;
  masterKeyId: string;
} {
  const { current } = masterKeyRing();
  const dataKey = openDataKey(wallet);
  try {
    return { sealedDataKey: seal(current.key, dataKey, aadFor(wallet, 'data-key')), masterKeyId: current.id };
  } finally {
    dataKey.fill(0);
  }
}

function openDataKey(wallet: WalletIdentity & Pick<SealedWalletKey, 'sealedDataKey' | 'masterKeyId'>): Buffer {
  const context = `The data key of wallet ${wallet.id}`;
  const masterKey = masterKeyById(wallet.masterKeyId, context);
  return open(masterKey, wallet.sealedDataKey, aadFor(wallet, 'data-key'), context);
}
