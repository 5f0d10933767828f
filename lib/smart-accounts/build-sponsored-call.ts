/**
 * A call the EOA makes without holding native coin (ADR 0035): a UserOperation whose sender is the EOA,
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

interface AccountCall {
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
  /** The accounts' authorizations, for those that do not delegate to Simple7702Account yet. */
  authorizationList: SignedAuthorization[];
  /** One per operation, in order. */
  userOperationHashes: Hex[];
}

/** One account's part: its key, what was read of it, its calls and their gas. */
export interface AccountOperation {
  owner: PrivateKeyAccount;
  facts: SponsorFacts;
  calls: AccountCall[];
  /** Gas the inner calls need (their estimate). */
  callGas: bigint;
}

/** The account's UserOperation, signed, and its authorization when it needs one. */
async function signOperation(chainId: number, operation: AccountOperation) {
  const { owner, facts, calls } = operation;
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
    callGasLimit: operation.callGas + EXECUTE_OVERHEAD,
    verificationGasLimit: VERIFICATION_GAS,
    preVerificationGas: 0n,
    maxFeePerGas: 0n,
    maxPriorityFeePerGas: 0n,
    signature: '0x',
  };
  const hash = getUserOperationHash({ chainId, entryPointAddress: ENTRY_POINT_V08_ADDRESS, entryPointVersion: '0.8', userOperation });
  // Simple7702Account checks ECDSA.recover(userOpHash, signature) == address(this): the raw EIP-712 digest.
  userOperation.signature = await owner.sign({ hash });
  const authorization = delegated ? undefined : await signDelegation(owner, { chainId, nonce: facts.accountNonce });
  const gas = VERIFICATION_GAS + userOperation.callGasLimit + (authorization ? AUTHORIZATION_GAS : 0n);
  return { packed: toPackedUserOperation(userOperation), hash, authorization, gas };
}

/**
 * One `handleOps` for one or more accounts' operations (a batch: several deposit addresses swept in one
 * transaction). Each account appears once: its operation takes its next EntryPoint nonce.
 */
export async function buildSponsoredCall(input: {
  chainId: number;
  operations: AccountOperation[];
  /** Who sends handleOps (and would receive the fees, which are 0). */
  relayer: Address;
}): Promise<SponsoredCall> {
  if (input.operations.length === 0) throw new Error('buildSponsoredCall: no operation');
  if (new Set(input.operations.map((op) => op.facts.account)).size !== input.operations.length) {
    throw new Error('buildSponsoredCall: one operation per account');
  }
  const signed = await Promise.all(input.operations.map((operation) => signOperation(input.chainId, operation)));
  return {
    to: ENTRY_POINT_V08_ADDRESS,
    data: encodeFunctionData({
      abi: entryPoint08Abi,
      functionName: 'handleOps',
      args: [signed.map((op) => op.packed), input.relayer],
    }),
    value: 0n,
    gas: ENTRY_POINT_OVERHEAD + signed.reduce((sum, op) => sum + op.gas, 0n),
    authorizationList: signed.flatMap((op) => (op.authorization ? [op.authorization] : [])),
    userOperationHashes: signed.map((op) => op.hash),
  };
}
