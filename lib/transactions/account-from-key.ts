import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

/** A viem account over a wallet's opened key; the key buffer is wiped once the account holds it. */
export function accountFromKey(key: Buffer): PrivateKeyAccount {
  const account = privateKeyToAccount(`0x${key.toString('hex')}`);
  key.fill(0);
  return account;
}
