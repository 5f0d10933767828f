/**
 * A call the EOA makes without holding native coin (ADR 0033): a UserOperation whose sender is the EOA,
 * calling its Simple7702Account `execute` (one call) or `executeBatch`, signed with the EOA's key, inside
 * `EntryPoint.handleOps([op], relayer)`. The relayer (the gas tank) sends it as a type-4 transaction with
 * the EOA's authorization when the EOA does not delegate to Simple7702Account yet.
 *
 * The operation's fee fields are 0: the EntryPoint asks the account for no prefund, so it never needs coin,
 * and the relayer pays the outer transaction's gas. The signature covers chain, EntryPoint, sender, nonce
 * and call data: the relayer can carry the operation, not change it.
 */
import { encodeFunctionData, parseAbi, type Address, type Hex, type SignedAuthorization } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { entryPoint08Abi, getUserOperationHash, toPackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { ENTRY_POINT_V08_ADDRESS, SIMPLE_7702_ACCOUNT_ADDRESS } from '@/lib/chains/smart-account-contracts';
import type { SponsorFacts } from './read-sponsor-facts';
import { signDelegation } from './sign-delegation';

/** Simple7702Account's BaseAccount entry points (the ABI of @account-abstraction/contracts 0.8.0). */
const accountAbi = parseAbi([
  'function execute(address target, uint256 value, bytes data)',
  'struct Call { address target; uint256 value; bytes data; }',
  'function executeBatch(Call[] calls)',
]);

/** Gas the account's validation may use (ecrecover and the EntryPoint's checks). */
const VERIFICATION_GAS = 100_000n;
/** The EntryPoint's own work around one operation, and the call data of handleOps. */
const ENTRY_POINT_OVERHEAD = 90_000n;
/** EIP-7702: per authorization to an account without code (PER_EMPTY_ACCOUNT_COST). */
const AUTHORIZATION_GAS = 25_000n;
/** Simple7702Account's execute around the inner call. */
const EXECUTE_OVERHEAD = 20_000n;

export interface AccountCall {
  to: Address;
  value: bigint;
  data: Hex | undefined;
}

export interface SponsoredCall {
  /** The outer transaction: the relayer calls the EntryPoint. */
  to: Address;
  data: Hex;
  value: 0n;
  gas: bigint;
  /** The EOA's authorization, when it does not delegate to Simple7702Account yet. */
  authorizationList: SignedAuthorization[];
  userOperationHash: Hex;
}

export async function buildSponsoredCall(input: {
  owner: PrivateKeyAccount;
  chainId: number;
  facts: SponsorFacts;
  calls: AccountCall[];
  /** Gas the inner calls need (their estimate). */
  callGas: bigint;
  /** Who sends handleOps (and would receive the fees, which are 0). */
  relayer: Address;
}): Promise<SponsoredCall> {
  const { owner, facts, calls } = input;
  if (owner.address !== facts.account) throw new Error('buildSponsoredCall: the owner is not the account the facts were read for');
  if (calls.length === 0) throw new Error('buildSponsoredCall: no call');
  const callData =
    calls.length === 1
      ? encodeFunctionData({ abi: accountAbi, functionName: 'execute', args: [calls[0]!.to, calls[0]!.value, calls[0]!.data ?? '0x'] })
      : encodeFunctionData({
          abi: accountAbi,
          functionName: 'executeBatch',
          args: [calls.map((call) => ({ target: call.to, value: call.value, data: call.data ?? '0x' }))],
        });
  const delegated = facts.delegatedTo === SIMPLE_7702_ACCOUNT_ADDRESS;
  const userOperation: UserOperation<'0.8'> = {
    sender: facts.account,
    nonce: facts.entryPointNonce,
    callData,
    callGasLimit: input.callGas + EXECUTE_OVERHEAD,
    verificationGasLimit: VERIFICATION_GAS,
    preVerificationGas: 0n,
    maxFeePerGas: 0n,
    maxPriorityFeePerGas: 0n,
    signature: '0x',
  };
  const userOperationHash = getUserOperationHash({
    chainId: input.chainId,
    entryPointAddress: ENTRY_POINT_V08_ADDRESS,
    entryPointVersion: '0.8',
    userOperation,
  });
  // Simple7702Account checks ECDSA.recover(userOpHash, signature) == address(this): the raw EIP-712 digest.
  userOperation.signature = await owner.sign({ hash: userOperationHash });
  const authorizationList = delegated ? [] : [await signDelegation(owner, { chainId: input.chainId, nonce: facts.accountNonce })];
  return {
    to: ENTRY_POINT_V08_ADDRESS,
    data: encodeFunctionData({
      abi: entryPoint08Abi,
      functionName: 'handleOps',
      args: [[toPackedUserOperation(userOperation)], input.relayer],
    }),
    value: 0n,
    gas: ENTRY_POINT_OVERHEAD + VERIFICATION_GAS + userOperation.callGasLimit + (delegated ? 0n : AUTHORIZATION_GAS),
    authorizationList,
    userOperationHash,
  };
}
