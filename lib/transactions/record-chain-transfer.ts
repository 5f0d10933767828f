/**
 * Step 1 of a spend on either family, in the caller's transaction: recordTransfer on EVM chains,
 * recordSolanaTransfer on Solana (the same gate, locks, idempotency and in-flight rules; the gas tank as
 * fee payer). `signer` is called only here, inside the transaction (a sealed key is opened for the moment).
 *
 * Gas: on EVM `gasSponsor` lets the tank top up a sender short of native coin (omitted: the sender pays).
 * On Solana the tank always pays as fee payer, counted against `gasSponsor` or else `solanaFeeSponsor`.
 */
import type { KeyPairSigner } from '@solana/kit';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { DbOrTx } from '@/lib/db/client';
import { openWalletKey, type SealedWalletKey, type WalletIdentity } from '@/lib/keyring/envelope';
import { accountFromKey } from './account-from-key';
import type { GasSponsor } from './gas-sponsorship';
import { isSolanaPrepared, type ChainPreparedTransfer } from './prepare-chain-transfer';
import { recordTransfer, type RecordTransferInput, type RecordedTransfer } from './record-transfer';
import { solanaSignerFromKey } from './solana/prepare-solana-transfer';
import { recordSolanaTransfer } from './solana/solana-transfers';

export type ChainSigner = PrivateKeyAccount | KeyPairSigner;

/** A service wallet's signer (its sealed key opened for the moment of signing), by its family. */
export async function walletSigner(wallet: WalletIdentity & SealedWalletKey): Promise<ChainSigner> {
  const key = openWalletKey(wallet);
  return wallet.family === 'solana' ? solanaSignerFromKey(key) : accountFromKey(key);
}

export async function recordChainTransfer(
  tx: DbOrTx,
  input: Omit<RecordTransferInput, 'prepared' | 'signer'> & {
    prepared: ChainPreparedTransfer;
    signer: () => Promise<ChainSigner>;
    solanaFeeSponsor?: GasSponsor;
  },
): Promise<RecordedTransfer> {
  const { prepared, signer, solanaFeeSponsor, ...rest } = input;
  const opened = await signer();
  if (isSolanaPrepared(prepared)) {
    const gasSponsor = rest.gasSponsor ?? solanaFeeSponsor;
    if (!('keyPair' in opened) || !gasSponsor)
      throw new Error('recordChainTransfer: a Solana spend needs a Solana signer and a fee sponsor');
    return recordSolanaTransfer(tx, {
      ...rest,
      purpose: input.purpose,
      authorization: input.authorization,
      gasSponsor,
      prepared,
      signer: opened,
    });
  }
  if ('keyPair' in opened) throw new Error('recordChainTransfer: an EVM spend needs an EVM signer');
  return recordTransfer(tx, { ...rest, purpose: input.purpose, authorization: input.authorization, prepared, signer: opened });
}
