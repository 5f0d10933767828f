/**
 * The incoming-transfer indexer of one EVM chain: the block scanner (lib/scanner) with the service
 * wallets (users' and merchants') as its consumer, for the wallet's Activity tab and the ledger. Transfers INTO a service wallet, from anyone:
 * registry-token Transfer logs and native coin (sent directly or by a contract), found by looking up the
 * recipients of each window among the wallets (by index: the wallets are never all loaded). A transfer
 * re-organised out follows its transaction into the new block, or ends `dropped` after re-checks.
 *
 * The gas tank is indexed too (its funding, for the ledger's reconciliation of the tank), with no wallet row.
 *
 * Not indexed: zero-value transfers (address-poisoning spam), tokens outside the registry, our own gas
 * top-ups (the platform's cost, spent at once on the transfer they pay for), and — on an RPC without
 * traces — native coin moved by contracts.
 *
 * One poll runs in one transaction holding a per-chain advisory lock (`wallet-incoming:<chain>`, its own,
 * not the charge watcher's): with several app instances, one indexes each chain at a time.
 */
import { and, eq, gte, inArray } from 'drizzle-orm';
import type { Hex, PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, EVM_NATIVE_TOKEN_ADDRESS, type ChainName } from '@/lib/chains/registry';
import type { DbOrTx } from '@/lib/db/client';
import { walletIncomingTransfers, wallets } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { scanChain } from '@/lib/scanner/scan-chain';
import { observedTransferMachine, type ObservedTransferStatus } from '@/lib/scanner/state';
import type { ScanConsumer, TransferStore } from '@/lib/scanner/types';
import { gasTankAddress } from '@/lib/transactions/gas-tank';
import { reopenConfirmedTransfers } from '@/lib/transactions/reopen-confirmed-transfers';
import { forgetBalances } from './cached-balance';
import { statusIs } from '@/lib/db/status-is';

/** A status change of incoming transfers, from the statuses the scanner's machine allows (a row already there is left alone). */
async function moveIncomingTransfers(
  tx: DbOrTx,
  ids: string[],
  patch: { status: ObservedTransferStatus; missingSinceBlock?: bigint | null },
): Promise<void> {
  await tx
    .update(walletIncomingTransfers)
    .set(patch)
    .where(
      and(
        inArray(walletIncomingTransfers.id, ids),
        inArray(walletIncomingTransfers.status, observedTransferMachine.leadingTo(patch.status)),
      ),
    );
}

export interface IncomingPollResult {
  chain: ChainName;
  scanned: { from: bigint; to: bigint } | null;
  /** Transfers recorded (or moved to another block after a re-organisation). */
  recorded: number;
  /** Transfers dropped: their block left the chain and their transaction stayed out of it. */
  dropped: number;
  reorg: boolean;
}

export interface IncomingPollOptions {
  client?: PublicClient;
  /** Recipients per wallet lookup query (default LOOKUP_BATCH). */
  lookupBatch?: number;
  /** Confirmation depth (default: the chain's, 1 on a local node). */
  confirmations?: number;
}

/** Parameters per lookup query (PostgreSQL takes at most 65,535 per statement). */
const LOOKUP_BATCH = 1_000;

export async function pollIncomingTransfers(chain: ChainName, options: IncomingPollOptions = {}): Promise<IncomingPollResult | null> {
  const client = options.client ?? publicClientFor(chain);
  if (!client) return null;
  const result = await scanChain(walletsConsumer(options.lookupBatch ?? LOOKUP_BATCH), chain, {
    client,
    confirmations: options.confirmations,
  });
  if (!result) return null;
  // After the commit: Home reads these wallets' balances afresh.
  for (const address of result.owners) forgetBalances(chain, address);
  return { chain, scanned: result.scanned, recorded: result.recorded, dropped: result.dropped, reorg: result.reorg };
}

/** A service wallet, in its stored (EIP-55) form. */
interface ServiceWallet {
  address: string;
}

const walletsConsumer = (lookupBatch: number): ScanConsumer<ServiceWallet> => ({
  name: 'wallet-activity',
  lockName: 'wallet-incoming',
  blocksPerPoll: 100n,
  watchedAssets: async (_tx, chain) => ({
    erc20s: CHAINS[chain].tokens.filter((token) => !token.isNative).map((token) => token.address as Hex),
    native: true,
  }),
  matchRecipients: (tx, _chain, recipients) => serviceWalletsAmong(tx, recipients, lookupBatch),
  // Registry tokens only (the logs read are theirs) and the native coin.
  accepts: () => true,
  store: {
    byTxHashes: (tx, chain, txHashes) =>
      selectTransfers(tx, and(eq(walletIncomingTransfers.chain, chain), inArray(walletIncomingTransfers.txHash, txHashes))),
    async insert(tx, chain, found) {
      const rows = await tx
        .insert(walletIncomingTransfers)
        .values(found.map(({ transfer }) => ({ id: newId('walletIncomingTransfer'), chain, ...transfer })))
        .onConflictDoNothing()
        .returning({ toAddress: walletIncomingTransfers.toAddress });
      return rows.map((row) => row.toAddress);
    },
    async relocate(tx, id, location) {
      await tx
        .update(walletIncomingTransfers)
        .set({ ...location, ...(location.blockHash === undefined ? {} : { missingSinceBlock: null }) })
        .where(eq(walletIncomingTransfers.id, id));
      // In another block (re-included, or found again): pending there, confirmed afresh.
      if (location.blockHash !== undefined) await moveIncomingTransfers(tx, [id], { status: 'pending' });
    },
    open: (tx, chain) => openIncomingTransfers(tx, chain),
    async reopenSettled(tx, chain, fromBlock) {
      // As the charge watcher's payments (docs/adr/0036): a sweep into a merchant wallet whose re-sent
      // transaction reverted must leave the wallet's books too, not only the deposit's.
      const rows = await tx
        .select({ id: walletIncomingTransfers.id, owner: walletIncomingTransfers.toAddress })
        .from(walletIncomingTransfers)
        .where(
          and(
            eq(walletIncomingTransfers.chain, chain),
            statusIs(walletIncomingTransfers.status, 'confirmed'),
            gte(walletIncomingTransfers.blockNumber, fromBlock),
          ),
        );
      if (rows.length)
        await moveIncomingTransfers(
          tx,
          rows.map((row) => row.id),
          { status: 'pending', missingSinceBlock: null },
        );
      return rows.map((row) => row.owner);
    },
    async update(tx, ids, { status, ...patch }) {
      if (status) await moveIncomingTransfers(tx, ids, { status, ...patch });
      else await tx.update(walletIncomingTransfers).set(patch).where(inArray(walletIncomingTransfers.id, ids));
    },
  } satisfies TransferStore<ServiceWallet>,
  async onReorg(tx, chain, fromBlock) {
    await reopenConfirmedTransfers(tx, chain, fromBlock);
  },
});

/** What each poll re-checks: only the chain's pending transfers, through wallet_incoming_transfers_pending_idx. */
export function openIncomingTransfers(tx: DbOrTx, chain: ChainName) {
  return selectTransfers(tx, and(eq(walletIncomingTransfers.chain, chain), statusIs(walletIncomingTransfers.status, 'pending')));
}

/**
 * EVM service wallets (users' and merchants') among `recipients` (EIP-55), by lower-case address: wallets_address_idx, batch by batch;
 * and the gas tank, whose funding the ledger needs.
 */
async function serviceWalletsAmong(tx: DbOrTx, recipients: string[], batch = LOOKUP_BATCH): Promise<Map<string, ServiceWallet>> {
  const found = new Map<string, ServiceWallet>();
  const unique = [...new Set(recipients)].filter((address) => address !== EVM_NATIVE_TOKEN_ADDRESS);
  const tank = gasTankAddress();
  if (unique.some((address) => address.toLowerCase() === tank.toLowerCase())) found.set(tank.toLowerCase(), { address: tank });
  for (let i = 0; i < unique.length; i += batch) {
    for (const row of await serviceWalletsLookup(tx, unique.slice(i, i + batch)))
      found.set(row.address.toLowerCase(), { address: row.address });
  }
  return found;
}

/** One batch of the lookup: wallets_address_idx finds each address, whatever the number of wallets. */
export function serviceWalletsLookup(tx: DbOrTx, addresses: string[]) {
  return tx
    .select({ address: wallets.address })
    .from(wallets)
    .where(and(inArray(wallets.address, addresses), eq(wallets.family, 'evm')));
}

function selectTransfers(tx: DbOrTx, where: ReturnType<typeof and>) {
  return tx
    .select({
      id: walletIncomingTransfers.id,
      owner: walletIncomingTransfers.toAddress,
      txHash: walletIncomingTransfers.txHash,
      logIndex: walletIncomingTransfers.logIndex,
      toAddress: walletIncomingTransfers.toAddress,
      tokenAddress: walletIncomingTransfers.tokenAddress,
      amountBaseUnits: walletIncomingTransfers.amountBaseUnits,
      blockNumber: walletIncomingTransfers.blockNumber,
      blockHash: walletIncomingTransfers.blockHash,
      status: walletIncomingTransfers.status,
      missingSinceBlock: walletIncomingTransfers.missingSinceBlock,
    })
    .from(walletIncomingTransfers)
    .where(where);
}
