/**
 * Reconciliation of a Solana cluster (called by reconcile-chains.ts): every address the service holds keys for
 * there — deposit addresses, users' and merchants' Solana service wallets, the gas tank's Solana key (the fee
 * payer) — against its SOL balance and its SPL token accounts' balances, read at 'finalized' commitment.
 *
 * A node serves balances only as of now, so each balance is read first (at a finalized slot C, its context
 * slot) and compared with the ledger's entries up to C — and only when the records have reached C:
 *
 *   + deposits: a payment the watcher recorded (not dropped), its slot ≤ C — and the watcher's last complete
 *     search of the address began at or after C (`searched_slot`), so nothing up to C is missing; an address
 *     still watched whose search has not reached C — after waiting up to `searchWaitMs` for the watcher's next
 *     search, which on a live cluster always begins after the readings — is skipped this run (busy); a stray the slow pass found
 *     (stray_deposits, ./audit-solana-deposits.ts), its slot ≤ C;
 *   + wallets and the tank: an incoming transfer the Solana wallet indexer recorded (./poll-solana-wallets.ts),
 *     its slot ≤ C. The indexer is run for them after the readings, so its cursor passes C; a (wallet, token)
 *     whose cursor still has not (a listing cut short) is busy;
 *   − a transfer out of the address once finalized (`confirmed`; Solana transfers carry no slot, and one still
 *     signed or broadcast, or recorded after the run began, makes the address busy). The tank's are its fee
 *     records (purpose gas_topup: the fee and any token-account rent it paid as fee payer, at what it really
 *     spent) — they move nothing into the address named as their recipient, so they are entries of the tank
 *     only.
 *
 * The tank is funded from outside, before any record: its books open at the first run that reads it
 * (ledger_openings, as on EVM), and its expected balance is that balance plus its ledger since.
 * Known gap: a transfer finalized between its reading and the read of the records counts before the chain
 * shows it — a difference for one run, gone at the next.
 */
import { and, eq, inArray, or } from 'drizzle-orm';
import { address, type Address, type GetAccountInfoApi, type GetBalanceApi, type GetSlotApi, type Rpc, type Slot } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTokenDecoder } from '@solana-program/token';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { type SolanaRpc } from '@/lib/chains/solana-rpc';
import {
  depositAddresses,
  outboundTransfers,
  payments,
  solanaWalletCursors,
  strayDeposits,
  walletIncomingTransfers,
  wallets,
} from '@/lib/db/schema';
import { IN_FLIGHT_STATUSES } from '@/lib/transactions/state';
import type { Discrepancy } from './discrepancy';
import { pollSolanaWallets, solanaTankAddress } from './poll-solana-wallets';
import { tankExpected, tankOpenings } from './tank-expected';

type SolanaReconcileRpc = Rpc<GetAccountInfoApi & GetBalanceApi & GetSlotApi>;

export interface SolanaReconciliation {
  /** The finalized slot read before the balances (each balance is compared at its own context slot, at or above it). */
  atBlock: bigint;
  checked: number;
  busy: number;
  discrepancies: Discrepancy[];
}

const READ_CONCURRENCY = 8;

export async function reconcileSolana(
  chain: ChainName,
  rpc: SolanaRpc,
  options: { searchWaitMs?: number } = {},
): Promise<SolanaReconciliation> {
  const startedAt = new Date();
  const atBlock = await rpc.getSlot({ commitment: 'finalized' }).send();
  const tank = await solanaTankAddress();
  const holders = await holdersOf(chain, tank);
  const tokens = CHAINS[chain].tokens;

  // Chain first: every balance with the finalized slot it was read at.
  const readings: { holder: Holder; token: string; actual: bigint; slot: bigint }[] = [];
  const work = holders.flatMap((holder) => tokens.map((token) => ({ holder, token })));
  for (let i = 0; i < work.length; i += READ_CONCURRENCY) {
    readings.push(
      ...(await Promise.all(
        work.slice(i, i + READ_CONCURRENCY).map(async ({ holder, token }) => ({
          holder,
          token: token.address,
          ...(await balanceOf(rpc, address(holder.address), token.isNative ? undefined : address(token.address), atBlock)),
        })),
      )),
    );
  }

  // The wallet indexer catches up past every wallet's reading (it reads the finalized slot before listing).
  const indexed = holders.filter((h) => h.kind !== 'deposit').map((h) => h.address);
  if (indexed.length) await pollSolanaWallets(chain, { solanaRpcFor: () => rpc, owners: indexed, maxAccounts: Infinity });

  // Then the records, as they are now: an address whose records may not reach its reading is busy.
  // A watched deposit is comparable once the watcher's search began at or after its reading; on a live cluster
  // (a slot every 400 ms) that is always a search after this run's readings, so wait for one (up to
  // `searchWaitMs`) rather than skip every watched address. Its payments are committed with its searched_slot.
  const ids = holders.map((h) => h.address);
  const readAt = new Map<string, bigint>();
  for (const { holder, slot } of readings) if (slot > (readAt.get(holder.address) ?? -1n)) readAt.set(holder.address, slot);
  const searchBehind = (searched: { address: string; searchedSlot: bigint | null; watchUntil: Date }[]) =>
    searched.some((s) => s.watchUntil > new Date() && (s.searchedSlot ?? -1n) < (readAt.get(s.address) ?? -1n));
  const waitUntil = Date.now() + (options.searchWaitMs ?? 0);
  let records = await recordsOf(chain, ids);
  while (searchBehind(records.searched) && Date.now() < waitUntil) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    records = await recordsOf(chain, ids);
  }
  const now = new Date();
  const busyAddresses = new Set(
    records.outgoing
      .filter((t) => (IN_FLIGHT_STATUSES as readonly string[]).includes(t.status) || t.createdAt >= startedAt)
      .map((t) => t.from),
  );
  const openings = await tankOpenings(chain, tank);

  const discrepancies: Discrepancy[] = [];
  let checked = 0;
  let busy = 0;
  for (const reading of readings) {
    const { holder, token } = reading;
    const at = holder.address;
    const sum = <T extends { amount: bigint }>(rows: T[]) => rows.reduce((total, row) => total + row.amount, 0n);
    const out = sum(records.outgoing.filter((t) => t.from === at && t.token === token && t.status === 'confirmed'));
    let expected: bigint;
    if (holder.kind === 'deposit') {
      const search = records.searched.find((s) => s.address === at);
      const isWatched = !!search && search.watchUntil > now;
      if (busyAddresses.has(at) || (isWatched && (search.searchedSlot ?? -1n) < reading.slot)) {
        busy++;
        continue;
      }
      expected =
        sum(records.received.filter((p) => p.to === at && p.token === token && p.status !== 'dropped' && p.slot <= reading.slot)) +
        sum(records.strays.filter((d) => d.address === at && d.token === token && d.slot <= reading.slot)) -
        out;
    } else {
      const cursor = records.cursors.find((c) => c.owner === at && c.mint === token);
      if (busyAddresses.has(at) || (cursor?.searchedSlot ?? -1n) < reading.slot) {
        busy++;
        continue;
      }
      const ledger =
        sum(records.incoming.filter((w) => w.to === at && w.token === token && w.status !== 'dropped' && w.slot <= reading.slot)) - out;
      if (holder.kind === 'tank') {
        const opened = await tankExpected({ chain, tank, token, at: reading.slot, unit: 'slot', ledger, actual: reading.actual, openings });
        if (opened === null) {
          busy++;
          continue;
        }
        expected = opened;
      } else expected = ledger;
    }
    checked++;
    if (expected === reading.actual) continue;
    const info = CHAINS[chain].tokens.find((t) => t.address === token)!;
    discrepancies.push({
      chain,
      address: at,
      holder: holder.label,
      token,
      symbol: info.symbol,
      decimals: info.decimals,
      expected,
      actual: reading.actual,
      difference: reading.actual - expected,
      chargeIds: holder.chargeId ? [holder.chargeId] : [],
    });
  }
  return { atBlock, checked, busy, discrepancies };
}

interface Holder {
  kind: 'deposit' | 'wallet' | 'tank';
  address: string;
  label: string;
  chargeId?: string;
}

/**
 * Deposit addresses with a payment into them, a stray found in them or a transfer out of them; Solana service
 * wallets with an incoming transfer or a transfer out; the gas tank's Solana key.
 */
async function holdersOf(chain: ChainName, tank: string): Promise<Holder[]> {
  const db = getDb();
  const [deposits, walletRows] = await Promise.all([
    db
      .selectDistinct({ address: depositAddresses.address, chargeId: depositAddresses.chargeId })
      .from(depositAddresses)
      .where(
        and(
          eq(depositAddresses.chain, chain),
          or(
            inArray(depositAddresses.chargeId, db.select({ id: payments.chargeId }).from(payments).where(eq(payments.chain, chain))),
            inArray(
              depositAddresses.chargeId,
              db.select({ id: strayDeposits.chargeId }).from(strayDeposits).where(eq(strayDeposits.chain, chain)),
            ),
            inArray(
              depositAddresses.address,
              db.select({ from: outboundTransfers.fromAddress }).from(outboundTransfers).where(eq(outboundTransfers.chain, chain)),
            ),
          ),
        ),
      ),
    db
      .select({ address: wallets.address, userId: wallets.userId, merchantId: wallets.merchantId })
      .from(wallets)
      .where(
        and(
          eq(wallets.family, 'solana'),
          or(
            inArray(
              wallets.address,
              db
                .select({ to: walletIncomingTransfers.toAddress })
                .from(walletIncomingTransfers)
                .where(eq(walletIncomingTransfers.chain, chain)),
            ),
            inArray(
              wallets.address,
              db.select({ from: outboundTransfers.fromAddress }).from(outboundTransfers).where(eq(outboundTransfers.chain, chain)),
            ),
          ),
        ),
      ),
  ]);
  return [
    ...deposits.map((d): Holder => ({
      kind: 'deposit',
      address: d.address,
      label: `deposit address of ${d.chargeId}`,
      chargeId: d.chargeId,
    })),
    ...walletRows.map((w): Holder => ({
      kind: 'wallet',
      address: w.address,
      label: w.merchantId ? `wallet of merchant ${w.merchantId}` : `wallet of user ${w.userId}`,
    })),
    { kind: 'tank', address: tank, label: 'gas tank' },
  ];
}

/** The records of these addresses: payments and strays into deposits, incoming transfers into wallets, transfers out, cursors. */
async function recordsOf(chain: ChainName, ids: string[]) {
  const db = getDb();
  const [searched, outgoing, received, strays, incoming, cursors] = await Promise.all([
    db
      .select({ address: depositAddresses.address, searchedSlot: depositAddresses.searchedSlot, watchUntil: depositAddresses.watchUntil })
      .from(depositAddresses)
      .where(and(eq(depositAddresses.chain, chain), inArray(depositAddresses.address, ids))),
    db
      .select({
        from: outboundTransfers.fromAddress,
        token: outboundTransfers.tokenAddress,
        amount: outboundTransfers.amountBaseUnits,
        status: outboundTransfers.status,
        createdAt: outboundTransfers.createdAt,
      })
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chain, chain), inArray(outboundTransfers.fromAddress, ids))),
    db
      .select({
        to: payments.toAddress,
        token: payments.tokenAddress,
        amount: payments.amountBaseUnits,
        slot: payments.blockNumber,
        status: payments.status,
      })
      .from(payments)
      .where(and(eq(payments.chain, chain), inArray(payments.toAddress, ids))),
    db
      .select({
        address: strayDeposits.address,
        token: strayDeposits.tokenAddress,
        amount: strayDeposits.amountBaseUnits,
        slot: strayDeposits.blockNumber,
      })
      .from(strayDeposits)
      .where(and(eq(strayDeposits.chain, chain), inArray(strayDeposits.address, ids))),
    db
      .select({
        to: walletIncomingTransfers.toAddress,
        token: walletIncomingTransfers.tokenAddress,
        amount: walletIncomingTransfers.amountBaseUnits,
        slot: walletIncomingTransfers.blockNumber,
        status: walletIncomingTransfers.status,
      })
      .from(walletIncomingTransfers)
      .where(and(eq(walletIncomingTransfers.chain, chain), inArray(walletIncomingTransfers.toAddress, ids))),
    db
      .select()
      .from(solanaWalletCursors)
      .where(and(eq(solanaWalletCursors.chain, chain), inArray(solanaWalletCursors.owner, ids))),
  ]);
  return { searched, outgoing, received, strays, incoming, cursors };
}

/** SOL in the account, or the amount in its associated token account of `mint` (0 when there is none), at 'finalized'. */
export async function balanceOf(
  rpc: SolanaReconcileRpc,
  owner: Address,
  mint: Address | undefined,
  minContextSlot: Slot,
): Promise<{ actual: bigint; slot: bigint }> {
  const config = { commitment: 'finalized' as const, minContextSlot };
  if (!mint) {
    const { context, value } = await rpc.getBalance(owner, config).send();
    return { actual: value, slot: context.slot };
  }
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const { context, value } = await rpc.getAccountInfo(ata, { ...config, encoding: 'base64' }).send();
  if (!value) return { actual: 0n, slot: context.slot };
  const data = Buffer.from(value.data[0], 'base64');
  return { actual: getTokenDecoder().decode(data).amount, slot: context.slot };
}
