/**
 * What building a sponsored call for `account` needs from the chain, read before the database transaction
 * that records it: whether it already delegates to Simple7702Account (else the call carries the
 * authorization), its transaction count (the authorization's nonce) and its EntryPoint nonce (the
 * UserOperation's, key 0).
 */
import type { Address, PublicClient } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { ENTRY_POINT_V08_ADDRESS } from '@/lib/chains/smart-account-contracts';
import { readDelegation } from './read-delegation';

export interface SponsorFacts {
  account: Address;
  /** The implementation the account delegates to now (undefined: a plain EOA). */
  delegatedTo: Address | undefined;
  /** The account's own transaction count: the authorization's nonce. */
  accountNonce: number;
  /** The EntryPoint's sequential nonce for the account (key 0). */
  entryPointNonce: bigint;
}

export async function readSponsorFacts(client: PublicClient, account: Address): Promise<SponsorFacts> {
  const [delegatedTo, accountNonce, entryPointNonce] = await Promise.all([
    readDelegation(client, account),
    client.getTransactionCount({ address: account, blockTag: 'pending' }),
    client.readContract({ address: ENTRY_POINT_V08_ADDRESS, abi: entryPoint08Abi, functionName: 'getNonce', args: [account, 0n] }),
  ]);
  return { account, delegatedTo, accountNonce, entryPointNonce };
}
