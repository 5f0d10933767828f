/**
 * The EOA's EIP-7702 authorization to delegate to Simple7702Account, signed with its own key (from the
 * keyring: a wallet's sealed key or a deposit address's derived one). It names the chain and the EOA's
 * current transaction count, so it is good once, on that chain; whoever carries it (the relayer) cannot
 * point it elsewhere.
 */
import type { SignedAuthorization } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';

export async function signDelegation(
  owner: PrivateKeyAccount,
  input: { chainId: number; /** The EOA's transaction count (its next nonce) on that chain. */ nonce: number },
): Promise<SignedAuthorization> {
  return owner.signAuthorization({ address: SIMPLE_7702_ACCOUNT_ADDRESS, chainId: input.chainId, nonce: input.nonce });
}
