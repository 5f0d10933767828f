/**
 * Which of the window's top-level native transfers took effect. A plain transfer to an account cannot
 * fail, but a deposit address may one day hold code (EIP-7702), so each counts only with a successful
 * receipt. A block holding several of them (a busy game's block pays many charges) is asked for all its
 * receipts at once (`eth_getBlockReceipts`: one round trip instead of one per payment); a node without
 * that method, a block with few of them, or receipts of another block (re-organised meanwhile) fall back
 * to one `eth_getTransactionReceipt` per transaction, RECEIPTS_AT_ONCE at a time.
 */
import { toHex, type Hex, type PublicClient } from 'viem';

/** From this many transfers in one block, its receipts are read whole. */
const BLOCK_RECEIPTS_FROM = 4;
/** Receipts requested at once, one per transaction. */
const RECEIPTS_AT_ONCE = 16;
/** How long a node's refusal of eth_getBlockReceipts is remembered before asking again. */
const REFUSAL_TTL_MS = 10 * 60_000;
const refusedAt = new WeakMap<PublicClient, number>();

interface RawReceipt {
  transactionHash: string;
  blockHash: string;
  status: string;
}

/** Lower-case hashes of the transactions among `transfers` whose receipt says success. */
export async function succeededTransactions(
  client: PublicClient,
  transfers: readonly { txHash: Hex; blockNumber: bigint; blockHash: Hex }[],
  now = Date.now(),
): Promise<Set<string>> {
  const succeeded = new Set<string>();
  const byBlock = new Map<string, typeof transfers>();
  for (const t of transfers) byBlock.set(t.blockHash.toLowerCase(), [...(byBlock.get(t.blockHash.toLowerCase()) ?? []), t]);
  const oneByOne: Hex[] = [];
  for (const [blockHash, inBlock] of byBlock) {
    const refused = refusedAt.get(client);
    const whole =
      inBlock.length >= BLOCK_RECEIPTS_FROM && (refused === undefined || now - refused > REFUSAL_TTL_MS)
        ? await blockReceipts(client, inBlock[0]!.blockNumber, now)
        : undefined;
    if (!whole || whole.some((receipt) => receipt.blockHash.toLowerCase() !== blockHash)) {
      oneByOne.push(...inBlock.map((t) => t.txHash));
      continue;
    }
    const ok = new Set(whole.filter((receipt) => receipt.status === '0x1').map((receipt) => receipt.transactionHash.toLowerCase()));
    for (const t of inBlock) if (ok.has(t.txHash.toLowerCase())) succeeded.add(t.txHash.toLowerCase());
  }
  const unique = [...new Set(oneByOne)];
  for (let i = 0; i < unique.length; i += RECEIPTS_AT_ONCE) {
    const receipts = await Promise.all(unique.slice(i, i + RECEIPTS_AT_ONCE).map((hash) => client.getTransactionReceipt({ hash })));
    for (const receipt of receipts) if (receipt.status === 'success') succeeded.add(receipt.transactionHash.toLowerCase());
  }
  return succeeded;
}

async function blockReceipts(client: PublicClient, blockNumber: bigint, now: number): Promise<RawReceipt[] | undefined> {
  try {
    const receipts = (await client.request({
      method: 'eth_getBlockReceipts' as never,
      params: [toHex(blockNumber)] as never,
    })) as RawReceipt[] | null;
    return receipts ?? undefined;
  } catch {
    refusedAt.set(client, now);
    return undefined;
  }
}
