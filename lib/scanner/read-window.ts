/**
 * Reads one window of blocks [from, to] for transfers to anyone: ERC-20 Transfer logs of the given
 * contracts, and (when native coin is watched) each block's top-level value transfers and the internal
 * ones from its traces. Recipients are filtered by the caller (an index lookup on what was found).
 *
 * Everything read must belong to one chain: logs and traces carry their block's hash, checked against the
 * blocks read, and the window's last block is read again at the end. Any disagreement (a re-organisation
 * while reading) returns undefined: the poll writes nothing and the next one starts over.
 */
import { getAddress, parseAbiItem, type Block, type GetLogsReturnType, type Hex, type PublicClient } from 'viem';
import { EVM_NATIVE_TOKEN_ADDRESS } from '@/lib/chains/registry';
import { internalNativeTransfers, type TraceMode } from './internal-transfers';
import { internalLogIndex, NATIVE_LOG_INDEX } from './types';

const TRANSFER_EVENT = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
/** Blocks (or traces) fetched at once. */
const READS_AT_ONCE = 8;

type TransferKind = 'erc20' | 'native' | 'internal';

export interface RawTransfer {
  kind: TransferKind;
  txHash: Hex;
  logIndex: number;
  from: string;
  /** EIP-55 */
  to: string;
  /** EIP-55; the zero address for native coin. */
  token: string;
  value: bigint;
  blockNumber: bigint;
  blockHash: Hex;
}

export interface BlockHeader {
  number: bigint;
  hash: Hex;
  time: Date;
}

export interface WindowRead {
  transfers: RawTransfer[];
  /** Headers of the blocks read whole (native coin watched); others are read on demand. */
  headers: Map<bigint, BlockHeader>;
}

export async function readWindow(
  client: PublicClient,
  {
    from,
    to,
    toHash,
    erc20s,
    native,
    traceMode,
  }: { from: bigint; to: bigint; toHash: Hex; erc20s: Hex[]; native: boolean; traceMode: TraceMode },
): Promise<WindowRead | undefined> {
  const transfers: RawTransfer[] = [];
  const headers = new Map<bigint, BlockHeader>();

  if (native) {
    const numbers: bigint[] = [];
    for (let n = from; n <= to; n++) numbers.push(n);
    const blocks = await inBatches(numbers, (blockNumber) => client.getBlock({ blockNumber, includeTransactions: true }));
    for (const block of blocks) {
      const header = headerOf(block);
      headers.set(header.number, header);
      for (const transaction of block.transactions) {
        if (!transaction.to || transaction.value === 0n) continue;
        transfers.push({
          kind: 'native',
          txHash: transaction.hash,
          logIndex: NATIVE_LOG_INDEX,
          from: getAddress(transaction.from),
          to: getAddress(transaction.to),
          token: EVM_NATIVE_TOKEN_ADDRESS,
          value: transaction.value,
          blockNumber: header.number,
          blockHash: header.hash,
        });
      }
    }
    if (headers.get(to)?.hash !== toHash) return undefined;
    if (traceMode !== 'none') {
      const traced = await inBatches([...headers.values()], async (header) => ({
        header,
        internal: await internalNativeTransfers(client, traceMode, header),
      }));
      for (const { header, internal } of traced) {
        if (!internal) return undefined;
        for (const move of internal) {
          transfers.push({
            kind: 'internal',
            txHash: move.txHash,
            logIndex: internalLogIndex(move.position),
            from: move.from,
            to: move.to,
            token: EVM_NATIVE_TOKEN_ADDRESS,
            value: move.value,
            blockNumber: header.number,
            blockHash: header.hash,
          });
        }
      }
    }
  }

  if (erc20s.length) {
    for (const log of await transferLogs(client, erc20s, from, to)) {
      const { to: recipient, from: sender, value } = log.args;
      if (!recipient || !value || log.blockNumber === null || log.blockHash === null || log.transactionHash === null) continue;
      const header = headers.get(log.blockNumber);
      if (header && header.hash !== log.blockHash) return undefined;
      transfers.push({
        kind: 'erc20',
        txHash: log.transactionHash,
        logIndex: log.logIndex ?? 0,
        from: sender ? getAddress(sender) : '0x',
        to: getAddress(recipient),
        token: getAddress(log.address),
        value,
        blockNumber: log.blockNumber,
        blockHash: log.blockHash,
      });
    }
  }

  // The window's end still has the hash it had when the read began: nothing below it moved meanwhile.
  const end = await client.getBlock({ blockNumber: to });
  return end.hash === toHash ? { transfers, headers } : undefined;
}

/**
 * Transfer logs of `tokens` in [from, to]. A node refusing a range (too many results, range too wide)
 * is asked again for each half.
 */
type TransferLog = GetLogsReturnType<typeof TRANSFER_EVENT>[number];

async function transferLogs(client: PublicClient, tokens: Hex[], from: bigint, to: bigint): Promise<TransferLog[]> {
  try {
    return await client.getLogs({ address: tokens, event: TRANSFER_EVENT, fromBlock: from, toBlock: to });
  } catch (error) {
    if (from >= to) throw error;
    const middle = from + (to - from) / 2n;
    return [...(await transferLogs(client, tokens, from, middle)), ...(await transferLogs(client, tokens, middle + 1n, to))];
  }
}

export function headerOf(block: Pick<Block, 'number' | 'hash' | 'timestamp'>): BlockHeader {
  return { number: block.number!, hash: block.hash!, time: new Date(Number(block.timestamp) * 1000) };
}

async function inBatches<T, R>(items: readonly T[], read: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += READS_AT_ONCE) out.push(...(await Promise.all(items.slice(i, i + READS_AT_ONCE).map(read))));
  return out;
}
