/**
 * The fallback for RPCs that trace nothing (docs/adr/0013-one-block-scanner.md): native coin a contract
 * sent to a watched address shows only in its balance. For each address the consumer names (open
 * native-coin deposits: they receive and never send while open), a balance at the window's end above what
 * was recorded there is credited as a transfer of the first block in the window whose balance holds it —
 * not tied to one transaction (its reference is `balance:<block hash>:<address>`).
 */
import type { Hex, PublicClient } from 'viem';
import { EVM_NATIVE_TOKEN_ADDRESS } from '@/lib/chains/registry';
import type { BlockHeader } from './read-window';
import { BALANCE_CHANGE_LOG_INDEX, type BalanceWatch, type ObservedTransfer } from './types';

const CHECKS_AT_ONCE = 8;

export async function findBalanceCredits<Target>(
  client: PublicClient,
  {
    watches,
    from,
    to,
    headerAt,
  }: { watches: readonly BalanceWatch<Target>[]; from: bigint; to: bigint; headerAt: (number: bigint) => Promise<BlockHeader> },
): Promise<{ transfer: ObservedTransfer; target: Target }[]> {
  const credits: { transfer: ObservedTransfer; target: Target }[] = [];
  for (let i = 0; i < watches.length; i += CHECKS_AT_ONCE) {
    const batch = watches.slice(i, i + CHECKS_AT_ONCE);
    const found = await Promise.all(
      batch.map(async (watch) => {
        const address = watch.address as Hex;
        const balance = await client.getBalance({ address, blockNumber: to });
        if (balance <= watch.recorded) return undefined;
        // Balances only grow here: the first block of the window already holding `balance` is where it arrived.
        let low = from;
        let high = to;
        while (low < high) {
          const middle = low + (high - low) / 2n;
          if ((await client.getBalance({ address, blockNumber: middle })) >= balance) high = middle;
          else low = middle + 1n;
        }
        const header = await headerAt(low);
        const transfer: ObservedTransfer = {
          txHash: `balance:${header.hash}:${watch.address}`,
          logIndex: BALANCE_CHANGE_LOG_INDEX,
          fromAddress: '',
          toAddress: watch.address,
          tokenAddress: EVM_NATIVE_TOKEN_ADDRESS,
          amountBaseUnits: balance - watch.recorded,
          blockNumber: header.number,
          blockHash: header.hash,
          blockTime: header.time,
        };
        return { transfer, target: watch.target };
      }),
    );
    for (const credit of found) if (credit) credits.push(credit);
  }
  return credits;
}
