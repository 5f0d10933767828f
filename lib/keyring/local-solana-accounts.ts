/**
 * The Solana accounts of anvil's well-known development mnemonic (lib/chains/local-accounts.ts), at the
 * derivation path Phantom and Solflare use (m/44'/501'/{i}'/0', SLIP-0010 over the BIP-39 seed): importing the
 * mnemonic into such a wallet shows them. Public test keys that hold nothing on a real cluster. Account 0 is the
 * local Solana clusters' faucet (requestAirdrop) and the mint authority of their demo SPL tokens
 * (scripts/stack/solana-cluster.ts); account 1 is the demo payer's wallet, as on the EVM nodes.
 */
import { pbkdf2Sync } from 'node:crypto';
import { getAddressDecoder } from '@solana/kit';
import { LOCAL_DEV_MNEMONIC } from '@/lib/chains/local-accounts';
import { deriveSlip10Ed25519, ed25519PublicKey } from './solana-deposit-keys';

interface LocalSolanaAccount {
  address: string;
  /** seed ‖ public key (64 bytes), as createKeyPairSignerFromBytes takes it. */
  secretKey: Uint8Array;
}

function localSolanaAccount(index: number): LocalSolanaAccount {
  // BIP-39: PBKDF2-HMAC-SHA512 of the NFKD mnemonic, salt "mnemonic" (no passphrase), 2048 rounds.
  const seed = pbkdf2Sync(LOCAL_DEV_MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
  const { privateKey } = deriveSlip10Ed25519(seed, `m/44'/501'/${index}'/0'`);
  const publicKey = ed25519PublicKey(privateKey);
  return { address: getAddressDecoder().decode(publicKey), secretKey: new Uint8Array(Buffer.concat([privateKey, publicKey])) };
}

export const localSolanaMinterAccount = localSolanaAccount(0);
export const localSolanaDemoPayerAccount = localSolanaAccount(1);
