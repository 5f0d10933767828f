import { toHex } from 'viem';
import { HDKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

/** The gas tank's own BIP-44 account under DEPOSIT_HD_SEED (deposit addresses use account 0). */
export const GAS_TANK_PATH = "m/44'/60'/1'/0/0";

/** The gas tank's account for a given seed (base64), without reading the environment: the launcher and tests use it too. */
export function gasTankAccountFromSeed(seedBase64: string): PrivateKeyAccount {
  const key = HDKey.fromMasterSeed(Buffer.from(seedBase64, 'base64')).derive(GAS_TANK_PATH);
  return privateKeyToAccount(toHex(key.privateKey!));
}
