/**
 * What the chain says before a transfer is recorded: gas, fees, balances and the sender's nonce. Read
 * BEFORE the database transaction that records the transfer, so no RPC call waits inside a transaction
 * holding locks; `recordTransfer` then decides under the sender's lock with what is in flight.
 */
import { encodeFunctionData, erc20Abi, getAddress, type Address, type Hex, type PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { AppError } from '@/lib/errors';
import { readSponsorFacts, type SponsorFacts } from '@/lib/smart-accounts/read-sponsor-facts';
import { gasTankAddress } from './gas-tank';

/** Gas limits used when the node cannot estimate (e.g. an ERC-20 sender without native coin yet). */
const FALLBACK_GAS = { native: 21_000n, erc20: 100_000n, call: 300_000n } as const;

export interface TransferCall {
  to: Address;
  value: bigint;
  data: Hex | undefined;
}

/** The value a transfer moves, for the balance checks and the ledger (the call itself may be any call). */
export interface TransferSpend {
  token: TokenInfo;
  amount: bigint;
  /** Who receives the value. */
  recipient: string;
}

interface ChainFacts {
  /** Native balance at the latest block. */
  nativeBalance: bigint;
  /** Balance of the spent token at the latest block (ERC-20 spends only). */
  tokenBalance?: bigint;
  /** The node's pending nonce: a floor; our records decide above it. */
  chainNonce: number;
}

export interface PreparedTransfer {
  chain: ChainName;
  from: Address;
  call: TransferCall;
  spend: TransferSpend;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  sender: ChainFacts;
  /** Present when the gas tank may pay the fee: its own facts, read in the same pass. */
  gasTank?: ChainFacts & { address: Address };
  /**
   * Present when the transfer is relayed (ADR 0035): the gas tank sends the sender's smart-account call and
   * pays its gas; `gas` is then the inner call's. The sender's delegation and EntryPoint nonce, read now.
   */
  relay?: SponsorFacts;
}

/** The call that moves `amount` of `token` to `recipient`. */
function tokenTransferCall(token: TokenInfo, recipient: Address, amount: bigint): TransferCall {
  return token.isNative
    ? { to: recipient, value: amount, data: undefined }
    : {
        to: token.address as Address,
        value: 0n,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient, amount] }),
      };
}

function clientOrThrow(chain: ChainName): PublicClient {
  const client = publicClientFor(chain);
  if (!client) throw new AppError('chain_unavailable', `${CHAINS[chain].displayName} is not reachable right now. Try again shortly.`);
  return client;
}

async function readFacts(client: PublicClient, address: Address, token?: TokenInfo): Promise<ChainFacts> {
  const [nativeBalance, tokenBalance, chainNonce] = await Promise.all([
    client.getBalance({ address }),
    token && !token.isNative
      ? client.readContract({ address: token.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
      : Promise.resolve(undefined),
    client.getTransactionCount({ address, blockTag: 'pending' }),
  ]);
  return { nativeBalance, tokenBalance, chainNonce };
}

/**
 * Reads what recording `call` from `from` needs. A token transfer is the usual call; `call` may be any
 * call (a router swap), with `spend` saying what value it moves. `gasSponsored` also reads the gas tank.
 */
export async function prepareTransfer(input: {
  chain: ChainName;
  from: Address | string;
  spend: TransferSpend;
  call?: TransferCall;
  /** Known gas limit (skips estimation). */
  gas?: bigint;
  gasSponsored: boolean;
  /** Relay it through the sender's EIP-7702 smart account, the gas tank paying (lib/smart-accounts/smart-account-status.ts says where). */
  relayed?: boolean;
}): Promise<PreparedTransfer> {
  const client = clientOrThrow(input.chain);
  const from = getAddress(input.from);
  const call = input.call ?? tokenTransferCall(input.spend.token, getAddress(input.spend.recipient), input.spend.amount);
  try {
    const fallback = input.call ? FALLBACK_GAS.call : input.spend.token.isNative ? FALLBACK_GAS.native : FALLBACK_GAS.erc20;
    const [gas, fees, sender, tank, relay] = await Promise.all([
      input.gas ?? client.estimateGas({ account: from, ...call }).catch(() => fallback),
      client.estimateFeesPerGas(),
      readFacts(client, from, input.spend.token),
      input.gasSponsored || input.relayed ? readFacts(client, gasTankAddress()) : Promise.resolve(undefined),
      input.relayed ? readSponsorFacts(client, from) : Promise.resolve(undefined),
    ]);
    return {
      chain: input.chain,
      from,
      call,
      spend: input.spend,
      gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      sender,
      ...(tank ? { gasTank: { ...tank, address: gasTankAddress() } } : {}),
      ...(relay ? { relay } : {}),
    };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('chain_unavailable', `${CHAINS[input.chain].displayName} is not reachable right now. Try again shortly.`);
  }
}
