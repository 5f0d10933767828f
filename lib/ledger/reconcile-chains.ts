/**
 * Reconciliation: the ledger's expected balance of every address the service holds keys for against the
 * chain, at one block B that every record has reached — the chain's depth and both scanners' cursors — so
 * nothing in flight makes a false alarm. `npm run admin -- reconcile` prints the differences; a job logs
 * each one as an error (every 10 minutes, lib/jobs/scheduler.ts).
 *
 * The addresses, all of them each run (docs/adr/0033-every-address-in-the-books.md):
 *  - every deposit address ever issued on the chain, read from deposit_addresses page by page (not only
 *    those with ledger entries: a payment to an old address nobody recorded shows up here), in every
 *    registry token and its charge's token;
 *  - every service wallet with ledger entries;
 *  - the gas tank. It is funded from outside: the wallet indexer records its inflows, but funding from before
 *    the indexer watched it is in no record, so its books open at the first run that reads it
 *    (ledger_openings: balance and ledger sum at that block) and its expected balance afterwards is that
 *    balance plus its ledger entries since (funding in, top-ups out, fees).
 *
 * A difference is a fact to explain, not always a loss: more on chain than expected is usually a transfer
 * nothing records (a token the charge is not in, sent to a deposit address: stranded funds to refund);
 * less than expected means value left without a record — page someone.
 * An address with a transfer still on its way (signed or broadcast, not yet seen in a block) is skipped
 * for that run and counted as busy.
 *
 * Solana clusters: ./reconcile-solana.ts (deposit addresses, Solana service wallets and the tank's Solana key, at
 * finalized slots the watcher and the Solana wallet indexer have passed).
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { erc20Abi, getAddress, type Address, type PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { requiredConfirmations } from '@/lib/chains/required-confirmations';
import { CHAIN_NAMES, CHAINS, type ChainName } from '@/lib/chains/registry';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { isChainServed } from '@/lib/chains/served';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, ledgerOpenings, outboundTransfers, scannerCursors, wallets } from '@/lib/db/schema';
import { log } from '@/lib/log';
import { formatAmount } from '@/lib/money';
import { gasTankAddress } from '@/lib/transactions/gas-tank';
import { IN_FLIGHT_STATUSES } from '@/lib/transactions/state';
import { expectedBalances, type ExpectedBalance } from './expected-balances';
import { reconcileSolana } from './reconcile-solana';
import { metrics } from '@/lib/metrics/metrics';

interface Discrepancy {
  chain: ChainName;
  address: string;
  /** What the address is: a charge's deposit address, a merchant's or a user's wallet, the gas tank. */
  holder: string;
  token: string;
  symbol: string;
  decimals: number;
  expected: bigint;
  actual: bigint;
  /** actual − expected: positive = unrecorded funds, negative = value left without a record. */
  difference: bigint;
  chargeIds: string[];
}

export interface ChainReconciliation {
  chain: ChainName;
  /** The block every balance was compared at; null when the chain could not be reconciled. */
  atBlock: bigint | null;
  checked: number;
  busy: number;
  discrepancies: Discrepancy[];
  error?: string;
}

const READ_CONCURRENCY = 8;

/**
 * How long a Solana run waits for the watcher to search its watched deposit addresses past their readings
 * (it searches every 2 s): without it every address still watched is skipped as busy on a live cluster.
 */
const SOLANA_SEARCH_WAIT_MS = 10_000;

type ReconcileOptions = { chains?: ChainName[]; solanaSearchWaitMs?: number } & SolanaRpcOptions;

/** Reconciles the given chains (default: every served one); Solana clusters by ./reconcile-solana.ts. */
export async function reconcileChains(options: ReconcileOptions = {}): Promise<ChainReconciliation[]> {
  const chains = (options.chains ?? CHAIN_NAMES).filter((chain) => isChainServed(chain));
  const results: ChainReconciliation[] = [];
  for (const chain of chains) {
    results.push(CHAINS[chain].family === 'solana' ? await reconcileSolanaChain(chain, options) : await reconcileChain(chain));
  }
  return results;
}

/** A Solana cluster: deposits, wallets and the tank against their SOL and SPL balances at 'finalized'. An error is reported, not thrown. */
async function reconcileSolanaChain(chain: ChainName, options: ReconcileOptions): Promise<ChainReconciliation> {
  const rpc = resolveSolanaRpc(chain, options);
  if (!rpc) return { chain, atBlock: null, checked: 0, busy: 0, discrepancies: [], error: 'no RPC endpoint' };
  try {
    return { chain, ...(await reconcileSolana(chain, rpc, { searchWaitMs: options.solanaSearchWaitMs ?? SOLANA_SEARCH_WAIT_MS })) };
  } catch (error) {
    return { chain, atBlock: null, checked: 0, busy: 0, discrepancies: [], error: error instanceof Error ? error.message : String(error) };
  }
}

export async function reconcileChain(chain: ChainName): Promise<ChainReconciliation> {
  const client = publicClientFor(chain);
  if (!client) return { chain, atBlock: null, checked: 0, busy: 0, discrepancies: [], error: 'no RPC endpoint' };
  const atBlock = await comparableBlock(client, chain);
  if (atBlock === null)
    return { chain, atBlock, checked: 0, busy: 0, discrepancies: [], error: 'the scanners have not run on this chain yet' };

  const db = getDb();
  const ledger = await expectedBalances(db, { chain, atBlock });
  const { holders, tokensOf } = await holdersOf(chain, ledger);
  const tank = gasTankAddress().toLowerCase();
  const openings = await tankOpenings(chain, tank);
  const busy = await busyAddresses(chain);
  const tokens = CHAINS[chain].tokens;
  // Every registry token of every address we hold keys for (a token nobody expected still shows up), each
  // deposit's charge token (a merchant's custom token), plus any other token the ledger names.
  const keyOf = (address: string, token: string) => `${address}:${token}`;
  const expectedByKey = new Map(ledger.map((row) => [keyOf(row.address, row.token), row]));
  const pairs = new Map<string, { address: string; token: string; row?: ExpectedBalance }>();
  for (const address of holders.keys()) {
    for (const token of tokens) pairs.set(keyOf(address, token.address.toLowerCase()), { address, token: token.address.toLowerCase() });
    for (const token of tokensOf.get(address) ?? []) pairs.set(keyOf(address, token), { address, token });
  }
  for (const row of ledger)
    if (holders.has(row.address)) pairs.set(keyOf(row.address, row.token), { address: row.address, token: row.token });

  const discrepancies: Discrepancy[] = [];
  let checked = 0;
  let skipped = 0;
  const work = [...pairs.values()];
  for (let i = 0; i < work.length; i += READ_CONCURRENCY) {
    await Promise.all(
      work.slice(i, i + READ_CONCURRENCY).map(async ({ address, token }) => {
        if (busy.has(address)) {
          skipped++;
          return;
        }
        const row = expectedByKey.get(keyOf(address, token));
        const actual = await balanceAt(client, address, token, atBlock);
        let expected = row?.expected ?? 0n;
        if (address === tank) {
          const opened = await tankExpected({ chain, tank, token, atBlock, ledger: expected, actual, openings });
          if (opened === null) {
            skipped++;
            return;
          }
          expected = opened;
        }
        checked++;
        if (actual === expected) return;
        const info = tokens.find((t) => t.address.toLowerCase() === token);
        discrepancies.push({
          chain,
          address: getAddress(address),
          holder: holders.get(address)!,
          token,
          symbol: info?.symbol ?? token,
          decimals: info?.decimals ?? 18,
          expected,
          actual,
          difference: actual - expected,
          chargeIds: row?.chargeIds ?? [],
        });
      }),
    );
  }
  return { chain, atBlock, checked, busy: skipped, discrepancies };
}

/** The newest block both scanners have passed and that is at the chain's depth. */
export async function comparableBlock(client: PublicClient, chain: ChainName): Promise<bigint | null> {
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const cursors = await getDb()
    .select({ consumer: scannerCursors.consumer, lastBlock: scannerCursors.lastBlock })
    .from(scannerCursors)
    .where(eq(scannerCursors.chain, chain));
  if (cursors.length < 2) return null;
  const deepEnough = head - BigInt(requiredConfirmations(chain)) + 1n;
  return cursors.reduce((min, cursor) => (cursor.lastBlock < min ? cursor.lastBlock : min), deepEnough);
}

/** Deposit addresses per page when every one ever issued is listed. */
const DEPOSIT_PAGE = 1_000;

/**
 * Lower-case address → who it is: every deposit address ever issued on the chain, every wallet with
 * ledger entries, and the gas tank; with each deposit's charge token (which may be outside the registry).
 */
async function holdersOf(
  chain: ChainName,
  ledger: ExpectedBalance[],
): Promise<{ holders: Map<string, string>; tokensOf: Map<string, string[]> }> {
  const holders = new Map<string, string>();
  const tokensOf = new Map<string, string[]>();
  // Every deposit address ever issued, page by page in derivation order (deposit_addresses_index_idx). A reused
  // address (ADR 0038) has a row per lease: it is one holder, read in the tokens of all its charges.
  for (let after = { index: -1, id: '' }; ;) {
    const page = await getDb()
      .select({
        id: depositAddresses.id,
        address: depositAddresses.address,
        chargeId: depositAddresses.chargeId,
        index: depositAddresses.derivationIndex,
        token: charges.tokenAddress,
      })
      .from(depositAddresses)
      .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
      .where(
        and(
          eq(depositAddresses.family, 'evm'),
          sql`(${depositAddresses.derivationIndex}, ${depositAddresses.id}) > (${after.index}::integer, ${after.id}::text)`,
          eq(depositAddresses.chain, chain),
        ),
      )
      .orderBy(asc(depositAddresses.derivationIndex), asc(depositAddresses.id))
      .limit(DEPOSIT_PAGE);
    for (const d of page) {
      const address = d.address.toLowerCase();
      holders.set(address, `deposit address of ${d.chargeId}`);
      const tokens = tokensOf.get(address) ?? [];
      if (!tokens.includes(d.token.toLowerCase())) tokens.push(d.token.toLowerCase());
      tokensOf.set(address, tokens);
    }
    if (page.length < DEPOSIT_PAGE) break;
    const last = page[page.length - 1]!;
    after = { index: last.index, id: last.id };
  }
  const addresses = [...new Set(ledger.map((row) => row.address))].filter((address) => !holders.has(address));
  for (let i = 0; i < addresses.length; i += 1000) {
    const batch = addresses.slice(i, i + 1000).map((a) => getAddress(a));
    const walletRows = await getDb()
      .select({ address: wallets.address, userId: wallets.userId, merchantId: wallets.merchantId })
      .from(wallets)
      .where(and(eq(wallets.family, 'evm'), inArray(wallets.address, batch)));
    for (const w of walletRows)
      holders.set(w.address.toLowerCase(), w.merchantId ? `wallet of merchant ${w.merchantId}` : `wallet of user ${w.userId}`);
  }
  holders.set(gasTankAddress().toLowerCase(), 'gas tank');
  return { holders, tokensOf };
}

type Opening = { blockNumber: bigint; balanceBaseUnits: bigint; ledgerBaseUnits: bigint };

async function tankOpenings(chain: ChainName, tank: string): Promise<Map<string, Opening>> {
  const rows = await getDb()
    .select()
    .from(ledgerOpenings)
    .where(and(eq(ledgerOpenings.chain, chain), eq(ledgerOpenings.address, tank)));
  return new Map(rows.map((row) => [row.token, row]));
}

/**
 * The tank's expected balance of `token` at `atBlock`: its opening balance plus its ledger entries since.
 * The first run that reads it opens its books there (so it reports no difference that run). Null when
 * `atBlock` is before the opening (a node behind the one that opened them): not comparable this run.
 */
async function tankExpected(input: {
  chain: ChainName;
  tank: string;
  token: string;
  atBlock: bigint;
  /** The ledger's sum of the tank's entries up to atBlock. */
  ledger: bigint;
  actual: bigint;
  openings: Map<string, Opening>;
}): Promise<bigint | null> {
  const { chain, tank, token, atBlock, ledger, actual, openings } = input;
  let opening = openings.get(token);
  if (!opening) {
    const [row] = await getDb()
      .insert(ledgerOpenings)
      .values({ chain, address: tank, token, blockNumber: atBlock, balanceBaseUnits: actual, ledgerBaseUnits: ledger })
      .onConflictDoNothing()
      .returning();
    if (row) log.info('gas tank books opened', { chain, token, atBlock: atBlock.toString(), balance: actual.toString() });
    opening = row ?? (await tankOpenings(chain, tank)).get(token)!;
  }
  if (atBlock < opening.blockNumber) return null;
  return opening.balanceBaseUnits + ledger - opening.ledgerBaseUnits;
}

/** Senders with a transfer signed or broadcast but not yet seen in a block: their balance is moving. */
export async function busyAddresses(chain: ChainName): Promise<Set<string>> {
  const rows = await getDb()
    .select({ from: outboundTransfers.fromAddress, to: outboundTransfers.toAddress })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chain, chain), inArray(outboundTransfers.status, [...IN_FLIGHT_STATUSES])));
  return new Set(rows.flatMap((row) => [row.from.toLowerCase(), row.to.toLowerCase()]));
}

export async function balanceAt(client: PublicClient, address: string, token: string, blockNumber: bigint): Promise<bigint> {
  const owner = getAddress(address) as Address;
  if (/^0x0{40}$/.test(token)) return client.getBalance({ address: owner, blockNumber });
  return client.readContract({ address: getAddress(token), abi: erc20Abi, functionName: 'balanceOf', args: [owner], blockNumber });
}

/** The periodic job: reconcile every served chain, log each difference as an error. Returns how many there are. */
export async function reconcileAndReport(): Promise<number> {
  let total = 0;
  for (const result of await reconcileChains()) {
    if (!result.error) metrics().reconciliationDiscrepancies.set({ chain: result.chain }, result.discrepancies.length);
    if (result.error) log.warn('reconciliation skipped a chain', { chain: result.chain, reason: result.error });
    for (const d of result.discrepancies) {
      total++;
      log.error('ledger and chain disagree', {
        chain: d.chain,
        address: d.address,
        holder: d.holder,
        token: d.symbol,
        expected: formatAmount(d.expected, d.decimals),
        onChain: formatAmount(d.actual, d.decimals),
        difference: formatAmount(d.difference, d.decimals),
        chargeIds: d.chargeIds,
        atBlock: result.atBlock?.toString(),
      });
    }
  }
  return total;
}
