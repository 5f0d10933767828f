/**
 * The incoming-transfer indexer of a Solana cluster, for the ledger (docs/adr/0033-every-address-in-the-books.md,
 * "Solana"): what came INTO the Solana service wallets — users', merchants', and the gas tank's Solana key (the
 * fee payer, funded from outside) — so their expected balances can be compared with the chain
 * (./reconcile-solana.ts). The EVM twin is lib/wallets/poll-incoming-transfers.ts (a block scanner); a Solana
 * node indexes by account instead, so this lists each account's signatures, as the charge watcher does:
 *
 *  - per wallet and registry token, one account is listed: the wallet itself for SOL, its associated token
 *    account for a mint (a transfer to an existing token account need not name the wallet);
 *  - each listed transaction, at 'finalized', is read as the Solana Pay validator reads a payment
 *    (lib/payments/solana/find-transfers.ts): the wallet's net gain in it (lamports, or the mint's amount in
 *    accounts the wallet owns). A gain is a `wallet_incoming_transfers` row, `confirmed` (finalized), keyed by
 *    (signature, credited account). A loss is never recorded here: it is the outbound transfer's record, and
 *    one without a record is exactly what reconciliation must report.
 *  - one cursor per (wallet, mint) in solana_wallet_cursors: the newest signature through which everything
 *    is finalized and read, and `searched_slot`, the finalized slot read before the last complete listing
 *    began: every gain of a slot at or below it is recorded.
 *
 * Cost: one signature listing per (wallet, registry token) and pass, plus one getTransaction per new
 * signature — the tank is the fee payer of every Solana transaction the service sends, so each one is read
 * once here. A pass lists at most `maxAccounts` accounts, those listed longest ago first.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { getDb } from '@/lib/db/client';
import { solanaWalletCursors, walletIncomingTransfers, wallets } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { findReferencedTransfers } from '@/lib/payments/solana/find-transfers';
import { gasTankSolanaSigner } from '@/lib/transactions/gas-tank';

/** Accounts listed per pass at most (one signature listing each, plus the transactions found). */
const ACCOUNTS_PER_PASS = 300;

export interface SolanaWalletsPoll {
  chain: ChainName;
  listed: number;
  recorded: number;
}

/** The gas tank's Solana key, the fee payer of every Solana transaction the service sends. */
export async function solanaTankAddress(): Promise<string> {
  return (await gasTankSolanaSigner()).address;
}

/**
 * One pass over the Solana service wallets of `chain` (or only `owners`), each (wallet, registry token) from its
 * cursor. Null without an RPC. A failing account is logged and skipped; the others still commit.
 */
export async function pollSolanaWallets(
  chain: ChainName,
  options: SolanaRpcOptions & { owners?: string[]; maxAccounts?: number } = {},
): Promise<SolanaWalletsPoll | null> {
  const rpc = resolveSolanaRpc(chain, options);
  if (!rpc) return null;
  // Read before any listing: every transaction up to this slot is in the listings that follow.
  const slot = await rpc.getSlot({ commitment: 'finalized' }).send();
  const owners = options.owners ?? [...(await solanaServiceWallets()), await solanaTankAddress()];
  const accounts = await accountsByLastListing(chain, owners);
  let recorded = 0;
  let listed = 0;
  for (const account of accounts.slice(0, options.maxAccounts ?? ACCOUNTS_PER_PASS)) {
    try {
      const isNative = account.mint === nativeMint(chain);
      const listAddress = isNative
        ? account.owner
        : (
            await findAssociatedTokenPda({
              owner: address(account.owner),
              mint: address(account.mint),
              tokenProgram: TOKEN_PROGRAM_ADDRESS,
            })
          )[0];
      const found = await findReferencedTransfers(rpc, {
        listAddress,
        recipient: account.owner,
        commitment: 'finalized',
        ...(isNative ? {} : { splToken: account.mint }),
        ...(account.cursor ? { untilSignature: account.cursor } : {}),
      });
      const isSearched = found.isComplete && !found.rejected.some((r) => r.reason === 'not_found');
      recorded += await getDb().transaction(async (tx) => {
        await tx.execute(
          sql`select pg_advisory_xact_lock(hashtextextended(${`solana-wallets:${chain}:${account.owner}:${account.mint}`}, 0))`,
        );
        const [current] = await tx
          .select({ cursor: solanaWalletCursors.cursor })
          .from(solanaWalletCursors)
          .where(
            and(
              eq(solanaWalletCursors.chain, chain),
              eq(solanaWalletCursors.owner, account.owner),
              eq(solanaWalletCursors.mint, account.mint),
            ),
          );
        // Another pass moved the cursor after this one read it: it listed later, its findings count.
        if ((current?.cursor ?? null) !== account.cursor) return 0;
        const rows = found.transfers.length
          ? await tx
              .insert(walletIncomingTransfers)
              .values(
                found.transfers.map((transfer) => ({
                  id: newId('walletIncomingTransfer'),
                  chain,
                  txHash: transfer.signature,
                  logIndex: accountKey(listAddress),
                  fromAddress: transfer.payer,
                  toAddress: account.owner,
                  tokenAddress: account.mint,
                  amountBaseUnits: transfer.received,
                  blockNumber: transfer.slot,
                  blockHash: '',
                  blockTime: transfer.blockTime === null ? new Date() : new Date(Number(transfer.blockTime) * 1000),
                  status: 'confirmed' as const,
                })),
              )
              .onConflictDoNothing()
              .returning({ id: walletIncomingTransfers.id })
          : [];
        const cursor = found.finalizedThrough ?? account.cursor;
        const values = { cursor, updatedAt: new Date(), ...(isSearched ? { searchedSlot: slot } : {}) };
        await tx
          .insert(solanaWalletCursors)
          .values({ chain, owner: account.owner, mint: account.mint, ...values })
          .onConflictDoUpdate({ target: [solanaWalletCursors.chain, solanaWalletCursors.owner, solanaWalletCursors.mint], set: values });
        return rows.length;
      });
      listed++;
    } catch (error) {
      log.warn('solana wallet indexer: skipped an account this pass', { chain, owner: account.owner, mint: account.mint, error });
    }
  }
  return { chain, listed, recorded };
}

/** Every Solana service wallet (users' and merchants'). */
async function solanaServiceWallets(): Promise<string[]> {
  const rows = await getDb().select({ address: wallets.address }).from(wallets).where(eq(wallets.family, 'solana'));
  return rows.map((row) => row.address);
}

const nativeMint = (chain: ChainName) => CHAINS[chain].tokens.find((t) => t.isNative)!.address;

/** (owner, mint) of every registry token of each owner, with its cursor; never listed first, then longest ago. */
async function accountsByLastListing(
  chain: ChainName,
  owners: string[],
): Promise<{ owner: string; mint: string; cursor: string | null; updatedAt: Date | null }[]> {
  if (!owners.length) return [];
  const cursors = await getDb()
    .select()
    .from(solanaWalletCursors)
    .where(and(eq(solanaWalletCursors.chain, chain), inArray(solanaWalletCursors.owner, owners)))
    .orderBy(asc(solanaWalletCursors.updatedAt));
  const byKey = new Map(cursors.map((row) => [`${row.owner}:${row.mint}`, row]));
  const accounts = owners.flatMap((owner) =>
    CHAINS[chain].tokens.map((token) => {
      const row = byKey.get(`${owner}:${token.address}`);
      return { owner, mint: token.address, cursor: row?.cursor ?? null, updatedAt: row?.updatedAt ?? null };
    }),
  );
  return accounts.sort((a, b) => (a.updatedAt?.getTime() ?? -1) - (b.updatedAt?.getTime() ?? -1));
}

/**
 * The row's log index: a 31-bit FNV-1a hash of the credited account, so two wallets credited by one
 * transaction are two rows, and one account's credit is one row however often it is listed.
 */
function accountKey(account: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < account.length; i++) hash = Math.imul(hash ^ account.charCodeAt(i), 0x01000193);
  return hash & 0x7fffffff;
}
