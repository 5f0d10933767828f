/**
 * What the chain says before a transfer is recorded: gas, fees, balances and the sender's nonce. Read
 * BEFORE the database transaction that records the transfer, so no RPC call waits inside a transaction
 * holding locks; `recordTransfer` then decides under the sender's lock with what is in flight.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { encodeFunctionData, erc20Abi, getAddress, type Address, type Hex, type PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { outboundTransfers } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { gasTankAddress } from './gas-tank';
import { IN_FLIGHT_STATUSES } from './state';

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
  /**
   * The block the balances were read at (the latest when read). Our transfers the records still show in
   * flight may already be in it, and ones recorded as included may be after it: inFlightOf counts each
   * transfer once against balances of this block (a top-up already landed is not counted twice, N19).
   */
  atBlock: bigint;
  /** Native balance at `atBlock`. */
  nativeBalance: bigint;
  /** Balance of the spent token at `atBlock` (ERC-20 spends only). */
  tokenBalance?: bigint;
  /** The node's pending nonce: a floor; our records decide above it. */
  chainNonce: number;
  /** Our transfers to this address the records show in flight that are already in `atBlock` (their sender's nonce there is past theirs). */
  landedIncoming: string[];
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

async function readFacts(
  client: PublicClient,
  chain: ChainName,
  address: Address,
  atBlock: bigint,
  token?: TokenInfo,
): Promise<ChainFacts> {
  const [nativeBalance, tokenBalance, chainNonce, landedIncoming] = await Promise.all([
    client.getBalance({ address, blockNumber: atBlock }),
    token && !token.isNative
      ? client.readContract({
          address: token.address as Address,
          abi: erc20Abi,
          functionName: 'balanceOf',
          args: [address],
          blockNumber: atBlock,
        })
      : Promise.resolve(undefined),
    client.getTransactionCount({ address, blockTag: 'pending' }),
    landedIncomingTransfers(client, chain, address, atBlock),
  ]);
  return { atBlock, nativeBalance, tokenBalance, chainNonce, landedIncoming };
}

/**
 * Which of our transfers to `address` that the records still show in flight are already in block
 * `atBlock` (the reconciler has not seen them yet). Read after `atBlock` was fixed, so a transfer recorded
 * later cannot be in it; one whose sender's nonce at `atBlock` is past its own was mined by then (or its
 * nonce was filled by a cancel: not counting its value is then right too).
 */
async function landedIncomingTransfers(client: PublicClient, chain: ChainName, address: Address, atBlock: bigint): Promise<string[]> {
  const incoming = await getDb()
    .select({ id: outboundTransfers.id, from: outboundTransfers.fromAddress, nonce: outboundTransfers.nonce })
    .from(outboundTransfers)
    .where(
      and(
        eq(outboundTransfers.chain, chain),
        eq(outboundTransfers.toAddress, address),
        inArray(outboundTransfers.status, [...IN_FLIGHT_STATUSES]),
      ),
    );
  const senders = [...new Set(incoming.map((row) => row.from))];
  const nonces = new Map(
    await Promise.all(
      senders.map(async (from) => [from, await client.getTransactionCount({ address: from as Address, blockNumber: atBlock })] as const),
    ),
  );
  return incoming.filter((row) => (nonces.get(row.from) ?? 0) > row.nonce).map((row) => row.id);
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
}): Promise<PreparedTransfer> {
  const client = clientOrThrow(input.chain);
  const from = getAddress(input.from);
  const call = input.call ?? tokenTransferCall(input.spend.token, getAddress(input.spend.recipient), input.spend.amount);
  try {
    const fallback = input.call ? FALLBACK_GAS.call : input.spend.token.isNative ? FALLBACK_GAS.native : FALLBACK_GAS.erc20;
    // Balances at one fixed block, read before the records of what is in flight (landedIncomingTransfers).
    const atBlock = await client.getBlockNumber({ cacheTime: 0 });
    const [gas, fees, sender, tank] = await Promise.all([
      input.gas ?? client.estimateGas({ account: from, ...call }).catch(() => fallback),
      client.estimateFeesPerGas(),
      readFacts(client, input.chain, from, atBlock, input.spend.token),
      input.gasSponsored ? readFacts(client, input.chain, gasTankAddress(), atBlock) : Promise.resolve(undefined),
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
    };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('chain_unavailable', `${CHAINS[input.chain].displayName} is not reachable right now. Try again shortly.`);
  }
}
