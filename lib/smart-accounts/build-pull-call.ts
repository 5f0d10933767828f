/**
 * Pull sweeps (ADR 0035, "Pull sweeps"): a deposit address's first relayed sweep of a token also grants the gas
 * tank an allowance (`grantCall`: approve(tank, max) beside its transfer, in the same UserOperation); later sweeps
 * of it are the tank's own transaction to itself — its EOA delegated (EIP-7702) to the same Simple7702Account,
 * whose `executeBatch` accepts a call from `address(this)` — moving each deposit's tokens with `transferFrom`
 * (`buildPullCall`). No signature validation, no EntryPoint, no per-account nonce: one call per deposit.
 *
 * `executeBatch` reverts as a whole when one `transferFrom` does (a blacklisted payee, a paused token, an
 * allowance spent): nothing moves, every row of the transaction fails, and the deposits sweep again singly
 * (lib/payments/sweep-charges.ts). A token that returns false instead of reverting is no move either:
 * `pullMoved` confirms a row only on its token's Transfer event (from the deposit, to the payee, the amount).
 */
import {
  encodeFunctionData,
  erc20Abi,
  getAddress,
  maxUint256,
  parseAbi,
  parseEventLogs,
  type Address,
  type Hex,
  type SignedAuthorization,
  type TransactionReceipt,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { signDelegation } from './sign-delegation';

const accountAbi = parseAbi(['struct Call { address target; uint256 value; bytes data; }', 'function executeBatch(Call[] calls)']);

/** The transaction's own cost and executeBatch's around its calls. */
const PULL_OVERHEAD = 40_000n;
/** transferFrom's work beyond the estimated transfer: the allowance read (and write, for tokens that spend a max one). */
const TRANSFER_FROM_EXTRA = 15_000n;
/** EIP-7702: the tank's own authorization (PER_EMPTY_ACCOUNT_COST). */
const AUTHORIZATION_GAS = 25_000n;

/** approve(tank, max): the call a deposit adds to its first relayed sweep of a token. */
export function grantCall(token: Address, spender: Address): { to: Address; value: 0n; data: Hex } {
  return {
    to: token,
    value: 0n,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, maxUint256] }),
  };
}

export interface Pull {
  token: Address;
  from: Address;
  to: Address;
  amount: bigint;
  /** The estimated gas of the deposit's own transfer (prepareTransfer). */
  gas: bigint;
}

export interface PullCall {
  /** The tank itself. */
  to: Address;
  data: Hex;
  gas: bigint;
  /** The tank's own authorization while it does not delegate to Simple7702Account yet (its nonce is the transaction's + 1). */
  authorizationList: SignedAuthorization[];
}

/**
 * The tank's self-call moving every pull. `nonce` is the transaction's: a sender's own authorization in its own
 * transaction must name nonce + 1 (the sender's nonce is raised before authorizations are applied), and the
 * tank's next transaction then takes nonce + 2 (lib/transactions/lock-sender.ts counts it).
 */
export async function buildPullCall(input: {
  chainId: number;
  tank: PrivateKeyAccount;
  pulls: Pull[];
  /** Whether the tank already delegates to Simple7702Account. */
  delegated: boolean;
  nonce: number;
}): Promise<PullCall> {
  if (input.pulls.length === 0) throw new Error('buildPullCall: no pull');
  const authorizationList = input.delegated ? [] : [await signDelegation(input.tank, { chainId: input.chainId, nonce: input.nonce + 1 })];
  return {
    to: getAddress(input.tank.address),
    data: encodeFunctionData({
      abi: accountAbi,
      functionName: 'executeBatch',
      args: [
        input.pulls.map((pull) => ({
          target: pull.token,
          value: 0n,
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'transferFrom', args: [pull.from, pull.to, pull.amount] }),
        })),
      ],
    }),
    gas:
      PULL_OVERHEAD +
      input.pulls.reduce((sum, pull) => sum + pull.gas + TRANSFER_FROM_EXTRA, 0n) +
      (authorizationList.length ? AUTHORIZATION_GAS : 0n),
    authorizationList,
  };
}

/** Whether a pull transaction's receipt shows the row's move: the token's Transfer(from, to, amount). */
export function pullMoved(
  receipt: Pick<TransactionReceipt, 'logs' | 'status'>,
  row: { tokenAddress: string; fromAddress: string; toAddress: string; amountBaseUnits: bigint },
): boolean {
  if (receipt.status !== 'success') return false;
  const token = getAddress(row.tokenAddress);
  return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs, strict: false }).some(
    (event) =>
      getAddress(event.address) === token &&
      event.args.from !== undefined &&
      event.args.to !== undefined &&
      getAddress(event.args.from) === getAddress(row.fromAddress) &&
      getAddress(event.args.to) === getAddress(row.toAddress) &&
      event.args.value === row.amountBaseUnits,
  );
}

/** Whether a recorded call is a pull transaction: the relayer calling itself. */
export function isPullCall(row: { callTo: string | null; relayerAddress: string | null }): boolean {
  return row.relayerAddress !== null && row.callTo !== null && getAddress(row.callTo) === getAddress(row.relayerAddress);
}
