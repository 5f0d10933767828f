/**
 * The fallback for RPCs that trace nothing (docs/adr/0013-one-block-scanner.md): native coin a contract
 * sent to a watched address shows only in its balance. For each address the consumer names (open
 * native-coin deposits), a balance at the window's end above what the records explain there is credited as
 * a transfer of the first block in the window whose balance holds it — not tied to one transaction (its
 * reference is `balance:<block hash>:<address>`). What the records explain is net of our own gas top-ups
 * in and transfers out (the consumer's `recorded`, N13), so a top-up is never credited as a payment.
 */
import type { Hex, PublicClient } from 'viem';
import { EVM_NATIVE_TOKEN_ADDRESS } from '@/lib/chains/registry';
import type { BlockHeader } from './read-window';
import { BALANCE_CHANGE_LOG_INDEX, type BalanceWatch, type ObservedTransfer } from './types';

const CHECKS_AT_ONCE = 8;

/** A watched address whose balance at the window's end is above what was recorded there when the chain was read. */
export interface BalanceRise<Target> {
  address: string;
  target: Target;
  balance: bigint;
  /** The first block of the window already holding `balance`. */
  header: BlockHeader;
}

/** Step 1, before the poll's transaction: the chain reads. */
export async function findBalanceRises<Target>(
  client: PublicClient,
  {
    watches,
    from,
    to,
    headerAt,
  }: { watches: readonly BalanceWatch<Target>[]; from: bigint; to: bigint; headerAt: (number: bigint) => Promise<BlockHeader> },
): Promise<BalanceRise<Target>[]> {
  const rises: BalanceRise<Target>[] = [];
  for (let i = 0; i < watches.length; i += CHECKS_AT_ONCE) {
    const batch = watches.slice(i, i + CHECKS_AT_ONCE);
    const found = await Promise.all(
      batch.map(async (watch) => {
        const address = watch.address as Hex;
        const balance = await client.getBalance({ address, blockNumber: to });
        if (balance <= watch.recorded) return undefined;
        // The first block of the window already holding `balance` is where it arrived (our own transfers aside, balances only grow).
        let low = from;
        let high = to;
        while (low < high) {
          const middle = low + (high - low) / 2n;
          if ((await client.getBalance({ address, blockNumber: middle })) >= balance) high = middle;
          else low = middle + 1n;
        }
        return { address: watch.address, target: watch.target, balance, header: await headerAt(low) };
      }),
    );
    for (const rise of found) if (rise) rises.push(rise);
  }
  return rises;
}

/**
 * Step 2, in the poll's transaction after the window's transfers are recorded: what is still unexplained
 * by what is recorded now (`watches` read in the transaction) is credited.
 */
export function balanceCredits<Target>(
  rises: readonly BalanceRise<Target>[],
  watches: readonly BalanceWatch<Target>[],
): { transfer: ObservedTransfer; target: Target }[] {
  const recorded = new Map(watches.map((watch) => [watch.address.toLowerCase(), watch.recorded]));
  return rises.flatMap(({ address, target, balance, header }) => {
    const explained = recorded.get(address.toLowerCase());
    if (explained === undefined || balance <= explained) return [];
    const transfer: ObservedTransfer = {
      txHash: `balance:${header.hash}:${address}`,
      logIndex: BALANCE_CHANGE_LOG_INDEX,
      fromAddress: '',
      toAddress: address,
      tokenAddress: EVM_NATIVE_TOKEN_ADDRESS,
      amountBaseUnits: balance - explained,
      blockNumber: header.number,
      blockHash: header.hash,
      blockTime: header.time,
    };
    return [{ transfer, target }];
  });
}
