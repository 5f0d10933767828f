/**
 * Step 1 of executing a swap (both branches: held funds, on-ramp conversion), BEFORE any database
 * transaction: the RPC reads. The router calls — an approve when the router's allowance is short, then
 * swapTokensForExactTokens — each prepared as a transfer of the one engine (gas, fees, nonce, the sender's
 * balances), with the gas tank standing by for the fee (relayed where smart accounts are on, ADR 0035: the
 * swap then takes the EntryPoint nonce after the approve's and waits for it). Nothing is signed or written here: `recordSwap`
 * (record-swap.ts) does that in the caller's transaction.
 */
import type { Address, PublicClient } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { SwapPair } from '@/lib/chains/swap-pairs';
import { buildExactOutSwap, swapDeadline, type ExactOutQuote } from '@/lib/chains/uniswap-v2-router';
import { relaysOn } from '@/lib/transactions/prepare-chain-transfer';
import { prepareTransfer, type PreparedTransfer } from '@/lib/transactions/prepare-transfer';

/** What the chain says before a swap is recorded: the router calls and each transfer's gas, fees and balances. */
export interface PreparedSwap {
  pair: SwapPair;
  account: PrivateKeyAccount;
  recipient: Address;
  quote: ExactOutQuote;
  amountInMax: bigint;
  deadline: bigint;
  approve?: PreparedTransfer;
  swap: PreparedTransfer;
}

/** The RPC reads: allowance, gas estimates, fees, nonces. */
export async function prepareSwap(input: {
  pair: SwapPair;
  client: PublicClient;
  account: PrivateKeyAccount;
  recipient: Address;
  quote: ExactOutQuote;
  /** The most input to sign for (≤ quote.amountInMax; the caller caps it by what the payer accepted or holds). */
  amountInMax: bigint;
  now?: Date;
}): Promise<PreparedSwap> {
  const { pair, client, account, quote } = input;
  const from = account.address;
  const deadline = swapDeadline(input.now ?? new Date());
  const calls = await buildExactOutSwap(client, {
    from,
    router: pair.router,
    path: quote.path,
    amountOut: quote.amountOut,
    amountInMax: input.amountInMax,
    recipient: input.recipient,
    deadline,
  });
  const relayed = await relaysOn(pair.chain);
  const prepare = (call: { to: Address; data: `0x${string}`; gas: bigint }, amount: bigint) =>
    prepareTransfer({
      chain: pair.chain,
      from,
      spend: { token: pair.funding, amount, recipient: input.recipient },
      call: { to: call.to, value: 0n, data: call.data },
      gas: call.gas,
      gasSponsored: true,
      relayed,
    });
  // The approval moves no value; the swap may take up to amountInMax of the funding token.
  const approve = calls.approve ? await prepare(calls.approve, 0n) : undefined;
  const swap = await prepare(calls.swap, input.amountInMax);
  return {
    pair,
    account,
    recipient: input.recipient,
    quote,
    amountInMax: input.amountInMax,
    deadline,
    swap,
    ...(approve ? { approve } : {}),
  };
}
