/**
 * Who can sign for a sender again (fee bumps and cancels happen long after the request that recorded
 * the transfer): the gas tank, a user's or merchant's service wallet (sealed key, opened for the moment
 * of signing), or a charge's deposit address (re-derived from DEPOSIT_HD_SEED).
 */
import { and, eq } from 'drizzle-orm';
import { getAddress } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { getDb } from '@/lib/db/client';
import { depositAddresses, wallets } from '@/lib/db/schema';
import { depositAccount } from '@/lib/keyring/deposit-addresses';
import { openWalletKey } from '@/lib/keyring/envelope';
import { accountFromKey } from './account-from-key';
import { gasTankAccount } from './gas-tank';

export async function signerForAddress(chain: string, address: string): Promise<PrivateKeyAccount | undefined> {
  const wanted = getAddress(address);
  const tank = gasTankAccount();
  if (tank.address === wanted) return tank;
  const [wallet] = await getDb()
    .select()
    .from(wallets)
    .where(and(eq(wallets.address, wanted), eq(wallets.family, 'evm')));
  if (wallet) return accountFromKey(openWalletKey(wallet));
  const [deposit] = await getDb()
    .select({ derivationIndex: depositAddresses.derivationIndex })
    .from(depositAddresses)
    .where(and(eq(depositAddresses.chain, chain), eq(depositAddresses.address, wanted)))
    // A reused address has a row per lease, all with the same derivation index (ADR 0038).
    .limit(1);
  return deposit ? depositAccount(deposit.derivationIndex) : undefined;
}
