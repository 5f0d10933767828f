import 'server-only';
import { getAddressDecoder } from '@solana/kit';
import { toHex } from 'viem';
import { HDKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { deriveSlip10Ed25519, ed25519PublicKey } from '@/lib/keyring/solana-deposit-keys';

/** The gas tank's own BIP-44 account under DEPOSIT_HD_SEED (deposit addresses use account 0). */
const GAS_TANK_PATH = "m/44'/60'/1'/0/0";

/**
 * The gas tank's Solana key under DEPOSIT_HD_SEED (SLIP-0010). Deposit keys are m/44'/501'/{index}'/0':
 * their last segment is always 0', so this path (last segment 1') is never a deposit key's.
 */
const GAS_TANK_SOLANA_PATH = "m/44'/501'/0'/1'";

/** The gas tank's account for a given seed (base64), without reading the environment: the launcher and tests use it too. */
export function gasTankAccountFromSeed(seedBase64: string): PrivateKeyAccount {
  const key = HDKey.fromMasterSeed(Buffer.from(seedBase64, 'base64')).derive(GAS_TANK_PATH);
  return privateKeyToAccount(toHex(key.privateKey!));
}

/** The gas tank's Solana keypair for a given seed (base64): base58 address and seed ‖ public key (64 bytes), as deposit keys. */
export function gasTankSolanaKeyFromSeed(seedBase64: string): { address: string; secretKey: Uint8Array } {
  const { privateKey } = deriveSlip10Ed25519(Buffer.from(seedBase64, 'base64'), GAS_TANK_SOLANA_PATH);
  const publicKey = ed25519PublicKey(privateKey);
  return { address: getAddressDecoder().decode(publicKey), secretKey: new Uint8Array(Buffer.concat([privateKey, publicKey])) };
}
