/**
 * Reconciliation of a Solana cluster (called by reconcile-chains.ts): the ledger of every deposit address
 * against its SOL balance and its SPL token accounts' balances, read at 'finalized' commitment.
 *
 * A node serves balances only as of now, so each balance is read first (at a finalized slot C, its context
 * slot) and compared with the ledger's entries up to C — and only when the records have reached C:
 *
 *   + a payment the watcher recorded (not dropped), its slot ≤ C — and the watcher's last complete search of
 *     the address began at or after C (`searched_slot`), so nothing up to C is missing; an address still
 *     watched whose search has not reached C — after waiting up to `searchWaitMs` for the watcher's next search,
 *     which on a live cluster always begins after the readings — is skipped this run (busy);
 *   − a sweep or refund out of the address once finalized (`confirmed`; Solana transfers carry no slot, and
 *     one still signed or broadcast, or recorded after the run began, makes the address busy).
 *
 * The fee payer is the gas tank, so a deposit address pays no fee; the tank's fee records (purpose
 * gas_topup, "to" the deposit) move nothing into it and are not entries here. Service wallets on Solana are
 * not reconciled: nothing indexes their incoming transfers yet.
 */
import { and, eq, inArray, or } from 'drizzle-orm';
import { address, type Address, type GetAccountInfoApi, type GetBalanceApi, type GetSlotApi, type Rpc, type Slot } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda, getTokenDecoder } from '@solana-program/token';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { depositAddresses, outboundTransfers, payments } from '@/lib/db/schema';
import { IN_FLIGHT_STATUSES } from '@/lib/transactions/state';

export type SolanaReconcileRpc = Rpc<GetAccountInfoApi & GetBalanceApi & GetSlotApi>;

interface SolanaDifference {
  chain: ChainName;
  address: string;
  holder: string;
  token: string;
  symbol: string;
  decimals: number;
  expected: bigint;
  actual: bigint;
  difference: bigint;
  chargeIds: string[];
}

export interface SolanaReconciliation {
  /** The finalized slot read before the balances (each balance is compared at its own context slot, at or above it). */
  atBlock: bigint;
  checked: number;
  busy: number;
  discrepancies: SolanaDifference[];
}

const READ_CONCURRENCY = 8;

export async function reconcileSolana(
  chain: ChainName,
  rpc: SolanaReconcileRpc,
  options: { searchWaitMs?: number } = {},
): Promise<SolanaReconciliation> {
  const startedAt = new Date();
  const atBlock = await rpc.getSlot({ commitment: 'finalized' }).send();
  const deposits = await addressesWithEntries(chain);
  const tokens = CHAINS[chain].tokens;

  // Chain first: every balance with the finalized slot it was read at.
  const readings: { deposit: (typeof deposits)[number]; token: string; actual: bigint; slot: bigint }[] = [];
  const work = deposits.flatMap((deposit) => tokens.map((token) => ({ deposit, token })));
  for (let i = 0; i < work.length; i += READ_CONCURRENCY) {
    readings.push(
      ...(await Promise.all(
        work.slice(i, i + READ_CONCURRENCY).map(async ({ deposit, token }) => ({
          deposit,
          token: token.address,
          ...(await balanceOf(rpc, address(deposit.address), token.isNative ? undefined : address(token.address), atBlock)),
        })),
      )),
    );
  }

  // Then the records. A watched address is comparable once the watcher's search began at or after its reading;
  // on a live cluster (a slot every 400 ms) that is always a search after this run's readings, so wait for one
  // (up to `searchWaitMs`) rather than skip every watched address. Its payments are committed with its
  // searched_slot, so they are read after it.
  const ids = deposits.map((d) => d.address);
  const readAt = new Map<string, bigint>();
  for (const { deposit, slot } of readings) if (slot > (readAt.get(deposit.address) ?? -1n)) readAt.set(deposit.address, slot);
  const behind = (rows: Awaited<ReturnType<typeof searchesOf>>) =>
    rows.some((s) => s.watchUntil > new Date() && (s.searchedSlot ?? -1n) < (readAt.get(s.address) ?? -1n));
  const waitUntil = Date.now() + (options.searchWaitMs ?? 0);
  let searched = await searchesOf(chain, ids);
  while (behind(searched) && Date.now() < waitUntil) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    searched = await searchesOf(chain, ids);
  }
  const [outgoing, received] = ids.length
    ? await Promise.all([
        getDb()
          .select({
            from: outboundTransfers.fromAddress,
            token: outboundTransfers.tokenAddress,
            amount: outboundTransfers.amountBaseUnits,
            status: outboundTransfers.status,
            createdAt: outboundTransfers.createdAt,
            chargeId: outboundTransfers.chargeId,
          })
          .from(outboundTransfers)
          .where(and(eq(outboundTransfers.chain, chain), inArray(outboundTransfers.fromAddress, ids))),
        getDb()
          .select({
            to: payments.toAddress,
            token: payments.tokenAddress,
            amount: payments.amountBaseUnits,
            slot: payments.blockNumber,
            status: payments.status,
            chargeId: payments.chargeId,
          })
          .from(payments)
          .where(and(eq(payments.chain, chain), inArray(payments.toAddress, ids))),
      ])
    : [[], []];
  const now = new Date();
  const busyAddresses = new Set(
    outgoing.filter((t) => (IN_FLIGHT_STATUSES as readonly string[]).includes(t.status) || t.createdAt >= startedAt).map((t) => t.from),
  );

  const discrepancies: SolanaDifference[] = [];
  let checked = 0;
  let busy = 0;
  for (const reading of readings) {
    const { deposit, token } = reading;
    const search = searched.find((s) => s.address === deposit.address);
    const isWatched = !!search && search.watchUntil > now;
    if (busyAddresses.has(deposit.address) || (isWatched && (search.searchedSlot ?? -1n) < reading.slot)) {
      busy++;
      continue;
    }
    const expected =
      received
        .filter((p) => p.to === deposit.address && p.token === token && p.status !== 'dropped' && p.slot <= reading.slot)
        .reduce((sum, p) => sum + p.amount, 0n) -
      outgoing
        .filter((t) => t.from === deposit.address && t.token === token && t.status === 'confirmed')
        .reduce((sum, t) => sum + t.amount, 0n);
    checked++;
    if (expected === reading.actual) continue;
    const info = CHAINS[chain].tokens.find((t) => t.address === token)!;
    discrepancies.push({
      chain,
      address: deposit.address,
      holder: `deposit address of ${deposit.chargeId}`,
      token,
      symbol: info.symbol,
      decimals: info.decimals,
      expected,
      actual: reading.actual,
      difference: reading.actual - expected,
      chargeIds: [deposit.chargeId],
    });
  }
  return { atBlock, checked, busy, discrepancies };
}

/** How far the watcher has searched each address, and until when it watches it. */
async function searchesOf(chain: ChainName, ids: string[]) {
  if (!ids.length) return [];
  return getDb()
    .select({ address: depositAddresses.address, searchedSlot: depositAddresses.searchedSlot, watchUntil: depositAddresses.watchUntil })
    .from(depositAddresses)
    .where(and(eq(depositAddresses.chain, chain), inArray(depositAddresses.address, ids)));
}

/** Deposit addresses of the chain with a payment into them or a transfer out of them. */
async function addressesWithEntries(chain: ChainName): Promise<{ address: string; chargeId: string }[]> {
  return getDb()
    .selectDistinct({ address: depositAddresses.address, chargeId: depositAddresses.chargeId })
    .from(depositAddresses)
    .where(
      and(
        eq(depositAddresses.chain, chain),
        or(
          inArray(depositAddresses.chargeId, getDb().select({ id: payments.chargeId }).from(payments).where(eq(payments.chain, chain))),
          inArray(
            depositAddresses.address,
            getDb().select({ from: outboundTransfers.fromAddress }).from(outboundTransfers).where(eq(outboundTransfers.chain, chain)),
          ),
        ),
      ),
    );
}

/** SOL in the account, or the amount in its associated token account of `mint` (0 when there is none), at 'finalized'. */
async function balanceOf(
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
