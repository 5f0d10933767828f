/**
 * The accounts of the local development chains (anvil's well-known mnemonic; Solana's below): public test keys that hold
 * nothing on a real network. The dev stack (scripts/stack/) funds them; the demo seed and the sandbox
 * provider sign with them.
 */
import { pbkdf2Sync } from 'node:crypto';
import { getAddressDecoder } from '@solana/kit';
import { mnemonicToAccount } from 'viem/accounts';
import { deriveSlip10Ed25519, ed25519PublicKey } from '@/lib/keyring/solana-deposit-keys';

/** anvil's well-known development mnemonic: its accounts are funded with 10 000 native coins each. */
export const LOCAL_DEV_MNEMONIC = 'test test test test test test test test test test test junk';
/** Account 0 deploys and mints the demo tokens. */
export const localMinterAccount = mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: 0 });
/** Account 1 is the demo consumer's external wallet (e.g. imported into MetaMask), funded with every demo token. */
export const localDemoPayerAccount = mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: 1 });

/**
 * The same mnemonic's Solana accounts, at the derivation path Phantom and Solflare use (m/44'/501'/{i}'/0',
 * SLIP-0010 over the BIP-39 seed): importing the mnemonic into such a wallet shows them. Account 0 is the
 * local Solana clusters' faucet (requestAirdrop) and the mint authority of their demo SPL tokens; account 1
 * is the demo payer's wallet, as on the EVM nodes.
 */
export interface LocalSolanaAccount {
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
