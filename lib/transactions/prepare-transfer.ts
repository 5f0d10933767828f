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
import { readSponsorFacts, type SponsorFacts } from '@/lib/smart-accounts/read-sponsor-facts';
import { gasTankAddress } from './gas-tank';
import { IN_FLIGHT_STATUSES } from './state';

/** Gas limits used when the node cannot estimate (e.g. an ERC-20 sender without native coin yet). */
const FALLBACK_GAS = { native: 21_000n, erc20: 100_000n, call: 300_000n } as const;

/**
 * Added to a token transfer's estimate: the node estimates against the recipient's balance *now*, and writing
 * a balance slot that is empty when the transfer runs costs 17,100 gas more than writing one that is not
 * (EIP-2200/2929: SSTORE_SET 20,000 against SSTORE_RESET 2,900). A sweep estimated while the merchant wallet
 * held the token, sent after a withdrawal emptied it, ran out of gas without it (the fault suite's competing
 * spends). Unused gas is not charged; a sponsored top-up covers the limit, and what is left at the sender
 * counts towards its next fee.
 */
const EMPTY_RECIPIENT_SLOT_GAS = 17_100n;

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
   * The head before the balances were read (they are at it or later). Our transfers recorded as in a block
   * after it may not be in the balances yet: inFlightOf still counts them as spending (N19).
   */
  atBlock: bigint;
  /** Native balance at the latest block. */
  nativeBalance: bigint;
  /** Balance of the spent token at the latest block (ERC-20 spends only). */
  tokenBalance?: bigint;
  /** The node's pending nonce: a floor; our records decide above it. */
  chainNonce: number;
  /**
   * Our transfers to this address the records still show in flight that may already be in the balances
   * (their sender's nonce, read after the balances, is past theirs): not counted again as on their way.
   */
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

async function readFacts(
  client: PublicClient,
  chain: ChainName,
  address: Address,
  atBlock: bigint,
  token?: TokenInfo,
): Promise<ChainFacts> {
  const [nativeBalance, tokenBalance, chainNonce] = await Promise.all([
    client.getBalance({ address }),
    token && !token.isNative
      ? client.readContract({ address: token.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
      : Promise.resolve(undefined),
    client.getTransactionCount({ address, blockTag: 'pending' }),
  ]);
  // After the balances: whatever they hold of our transfers on their way has landed by now.
  const landedIncoming = await landedIncomingTransfers(client, chain, address);
  return { atBlock, nativeBalance, tokenBalance, chainNonce, landedIncoming };
}

/**
 * Which of our transfers to `address` that the records still show in flight may be in balances read just
 * before (the reconciler has not seen them yet): those whose sender's nonce, read now, is past theirs. One
 * that landed after the balances were read is wrongly taken as in them: the spend then counts less, never
 * more (a cancel that filled the nonce moved nothing: also right not to count).
 */
async function landedIncomingTransfers(client: PublicClient, chain: ChainName, address: Address): Promise<string[]> {
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
    await Promise.all(senders.map(async (from) => [from, await client.getTransactionCount({ address: from as Address })] as const)),
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
  /**
   * Relay it through the sender's EIP-7702 smart account, the gas tank paying (lib/smart-accounts/smart-account-status.ts
   * says where). A call moving native coin is relayed only when the sender could not pay the fee itself (it would
   * otherwise need a top-up); with enough coin it pays its own, as on every other chain.
   */
  relayed?: boolean;
}): Promise<PreparedTransfer> {
  const client = clientOrThrow(input.chain);
  const from = getAddress(input.from);
  const call = input.call ?? tokenTransferCall(input.spend.token, getAddress(input.spend.recipient), input.spend.amount);
  try {
    const fallback = input.call ? FALLBACK_GAS.call : input.spend.token.isNative ? FALLBACK_GAS.native : FALLBACK_GAS.erc20;
    // The head before the balances: a transfer included after it may not be in them yet (inFlightOf).
    const atBlock = await client.getBlockNumber({ cacheTime: 0 });
    const isTokenTransfer = !input.call && !input.spend.token.isNative;
    const [gas, fees, sender, tank, relay] = await Promise.all([
      input.gas ??
        client.estimateGas({ account: from, ...call }).then(
          (estimate) => (isTokenTransfer ? estimate + EMPTY_RECIPIENT_SLOT_GAS : estimate),
          () => fallback,
        ),
      client.estimateFeesPerGas(),
      readFacts(client, input.chain, from, atBlock, input.spend.token),
      input.gasSponsored || input.relayed ? readFacts(client, input.chain, gasTankAddress(), atBlock) : Promise.resolve(undefined),
      input.relayed ? readSponsorFacts(client, from) : Promise.resolve(undefined),
    ]);
    const paysOwnFee = call.value > 0n && sender.nativeBalance >= call.value + gas * fees.maxFeePerGas;
    return {
      chain: input.chain,
      from,
      call,
      spend: input.spend,
      gas,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      sender,
      ...(tank && (input.gasSponsored || !paysOwnFee) ? { gasTank: { ...tank, address: gasTankAddress() } } : {}),
      ...(relay && !paysOwnFee ? { relay } : {}),
    };
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('chain_unavailable', `${CHAINS[input.chain].displayName} is not reachable right now. Try again shortly.`);
  }
}
