/**
 * Reconciliation: the ledger's expected balance of every address the service holds keys for (charges'
 * deposit addresses, users' and merchants' service wallets) against the chain, at one block B that every
 * record has reached — the chain's depth and both scanners' cursors — so nothing in flight makes a false
 * alarm. `npm run admin -- reconcile` prints the differences; a job logs each one as an error.
 *
 * A difference is a fact to explain, not always a loss: more on chain than expected is usually a transfer
 * nothing records (a token the charge is not in, sent to a deposit address: stranded funds to refund);
 * less than expected means value left without a record — page someone. The gas tank is funded from
 * outside and its inflows are not indexed: it is reported by `gas-tank status`, not reconciled here.
 * An address with a transfer still on its way (signed or broadcast, not yet seen in a block) is skipped
 * for that run and counted as busy.
 *
 * Solana clusters: ./reconcile-solana.ts (deposit addresses, at a finalized slot the watcher has searched past).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { erc20Abi, getAddress, type Address, type PublicClient } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { requiredConfirmations } from '@/lib/chains/required-confirmations';
import { CHAIN_NAMES, CHAINS, type ChainName } from '@/lib/chains/registry';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { isChainServed } from '@/lib/chains/served';
import { getDb } from '@/lib/db/client';
import { depositAddresses, outboundTransfers, scannerCursors, wallets } from '@/lib/db/schema';
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
  /** What the address is: a charge's deposit address, a merchant's or a user's wallet. */
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

/** Reconciles the given chains (default: every served one); Solana clusters by ./reconcile-solana.ts. */
export async function reconcileChains(options: { chains?: ChainName[] } & SolanaRpcOptions = {}): Promise<ChainReconciliation[]> {
  const chains = (options.chains ?? CHAIN_NAMES).filter((chain) => isChainServed(chain));
  const results: ChainReconciliation[] = [];
  for (const chain of chains) {
    results.push(CHAINS[chain].family === 'solana' ? await reconcileSolanaChain(chain, options) : await reconcileChain(chain));
  }
  return results;
}

/** A Solana cluster: deposit addresses against their SOL and SPL balances at 'finalized'. An error is reported, not thrown. */
async function reconcileSolanaChain(chain: ChainName, options: SolanaRpcOptions): Promise<ChainReconciliation> {
  const rpc = resolveSolanaRpc(chain, options);
  if (!rpc) return { chain, atBlock: null, checked: 0, busy: 0, discrepancies: [], error: 'no RPC endpoint' };
  try {
    return { chain, ...(await reconcileSolana(chain, rpc)) };
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
  const holders = await holdersOf(chain, ledger);
  const busy = await busyAddresses(chain);
  const tokens = CHAINS[chain].tokens;
  // Every registry token of every address we hold keys for (a token nobody expected still shows up), plus any other token the ledger names.
  const keyOf = (address: string, token: string) => `${address}:${token}`;
  const expectedByKey = new Map(ledger.map((row) => [keyOf(row.address, row.token), row]));
  const pairs = new Map<string, { address: string; token: string; row?: ExpectedBalance }>();
  for (const address of holders.keys()) {
    for (const token of tokens) pairs.set(keyOf(address, token.address.toLowerCase()), { address, token: token.address.toLowerCase() });
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
        const expected = row?.expected ?? 0n;
        const actual = await balanceAt(client, address, token, atBlock);
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
async function comparableBlock(client: PublicClient, chain: ChainName): Promise<bigint | null> {
  const head = await client.getBlockNumber({ cacheTime: 0 });
  const cursors = await getDb()
    .select({ consumer: scannerCursors.consumer, lastBlock: scannerCursors.lastBlock })
    .from(scannerCursors)
    .where(eq(scannerCursors.chain, chain));
  if (cursors.length < 2) return null;
  const deepEnough = head - BigInt(requiredConfirmations(chain)) + 1n;
  return cursors.reduce((min, cursor) => (cursor.lastBlock < min ? cursor.lastBlock : min), deepEnough);
}

/** Lower-case address → who it is, for every address in the ledger the service holds keys for (the gas tank aside). */
async function holdersOf(chain: ChainName, ledger: ExpectedBalance[]): Promise<Map<string, string>> {
  const addresses = [...new Set(ledger.map((row) => row.address))];
  const tank = gasTankAddress().toLowerCase();
  const holders = new Map<string, string>();
  for (let i = 0; i < addresses.length; i += 1000) {
    const batch = addresses.slice(i, i + 1000).map((a) => getAddress(a));
    const [deposits, walletRows] = await Promise.all([
      getDb()
        .select({ address: depositAddresses.address, chargeId: depositAddresses.chargeId })
        .from(depositAddresses)
        .where(and(eq(depositAddresses.chain, chain), inArray(depositAddresses.address, batch))),
      getDb()
        .select({ address: wallets.address, userId: wallets.userId, merchantId: wallets.merchantId })
        .from(wallets)
        .where(and(eq(wallets.family, 'evm'), inArray(wallets.address, batch))),
    ]);
    for (const d of deposits) holders.set(d.address.toLowerCase(), `deposit address of ${d.chargeId}`);
    for (const w of walletRows)
      holders.set(w.address.toLowerCase(), w.merchantId ? `wallet of merchant ${w.merchantId}` : `wallet of user ${w.userId}`);
  }
  holders.delete(tank);
  return holders;
}

/** Senders with a transfer signed or broadcast but not yet seen in a block: their balance is moving. */
async function busyAddresses(chain: ChainName): Promise<Set<string>> {
  const rows = await getDb()
    .select({ from: outboundTransfers.fromAddress, to: outboundTransfers.toAddress })
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chain, chain), inArray(outboundTransfers.status, [...IN_FLIGHT_STATUSES])));
  return new Set(rows.flatMap((row) => [row.from.toLowerCase(), row.to.toLowerCase()]));
}

async function balanceAt(client: PublicClient, address: string, token: string, blockNumber: bigint): Promise<bigint> {
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
