/**
 * Who can sign for a Solana sender again, long after the request that recorded its transfer (a re-sign
 * once the blockhash expired: ./resign-solana-transfer.ts) — the Solana twin of ../signer-for-address.ts,
 * and the same sources the recording paths used: a user's or merchant's service wallet (its sealed key,
 * opened with the master key for the moment of signing: no PIN is involved, the PIN only authorised the
 * spend), or a charge's deposit address (re-derived from DEPOSIT_HD_SEED, as sweeps and refunds do).
 */
import type { KeyPairSigner } from '@solana/kit';
import { and, eq } from 'drizzle-orm';
import type { ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { depositAddresses, wallets } from '@/lib/db/schema';
import { solanaDepositSigner } from '@/lib/keyring/deposit-addresses';
import { openWalletKey } from '@/lib/keyring/envelope';
import { solanaSignerFromKey } from './prepare-solana-transfer';

export async function solanaSignerForAddress(chain: ChainName, address: string): Promise<KeyPairSigner | undefined> {
  const [wallet] = await getDb()
    .select()
    .from(wallets)
    .where(and(eq(wallets.address, address), eq(wallets.family, 'solana')));
  const signer = wallet
    ? await solanaSignerFromKey(openWalletKey(wallet))
    : await getDb()
        .select({ derivationIndex: depositAddresses.derivationIndex })
        .from(depositAddresses)
        .where(and(eq(depositAddresses.chain, chain), eq(depositAddresses.address, address)))
        .then(([deposit]) => (deposit ? solanaDepositSigner(deposit.derivationIndex) : undefined));
  // A key that does not open to its address (tampering, a changed seed) signs nothing.
  return signer?.address === address ? signer : undefined;
}
