/**
 * The slow pass over every deposit address ever issued (docs/adr/0033-every-address-in-the-books.md): the
 * charge watcher stops looking at an address 24 h after its charge expires, and never looks at tokens the
 * charge is not in. Each run takes, per EVM chain, the AUDIT_PAGE addresses read longest ago (never read
 * first) and compares their balances — every registry token and the charge's token — with the ledger at one
 * block every record has reached (reconcile-chains.ts's comparable block). Balance the ledger does not
 * explain is recorded:
 *
 *  - in the charge's token, once the address is past its watch window: a late payment (a `balance:`
 *    payment, confirmed, at that block), reported by the charge watcher's own late path (`markLate`:
 *    `charge.late_payment`, stranded funds, refundable — by claim link, as the sender is not known);
 *  - in any other token, at any time: a stray deposit (stray_deposits), in the ledger from then on, returned
 *    by the two-operator recovery command (./recover-deposit.ts).
 *
 * A reused address (ADR 0038) is read as its latest lease: funds found at a pooled address are that lease's
 * charge's (late, or stray) and take the address out of the pool.
 *
 * An address with a transfer on its way is left for the next run. Cadence: the job runs every 10 minutes
 * (lib/jobs/scheduler.ts), so each address is read at least every ⌈addresses on the chain / AUDIT_PAGE⌉ × 10
 * minutes (72,000 addresses a chain a day); docs/operations.md.
 *
 * Solana clusters: ./audit-solana-deposits.ts, the same rules and cadence at a finalized slot; a late payment
 * there carries its signature, payer and block time.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { getAddress } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAIN_NAMES, CHAINS, type ChainName } from '@/lib/chains/registry';
import { resolveSolanaRpc, type SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { isChainServed } from '@/lib/chains/served';
import { getDb } from '@/lib/db/client';
import { charges, depositAddressPool, depositAddresses, payments, strayDeposits } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { markLate } from '@/lib/payments/settle-charge';
import { BALANCE_CHANGE_LOG_INDEX } from '@/lib/scanner/types';
import { auditSolanaDeposits } from './audit-solana-deposits';
import { expectedBalances } from './expected-balances';
import { balanceAt, busyAddresses, comparableBlock } from './reconcile-chains';

/** Deposit addresses read per chain and run. */
const AUDIT_PAGE = 500;
const READ_CONCURRENCY = 8;

export interface DepositAudit {
  chain: ChainName;
  atBlock: bigint | null;
  /** Addresses read this run (busy ones aside). */
  audited: number;
  busy: number;
  latePayments: number;
  strayDeposits: number;
  error?: string;
}

/** One run over the given chains (default: every served one); Solana clusters by ./audit-solana-deposits.ts. */
export async function auditDepositAddresses(
  options: { chains?: ChainName[]; page?: number } & SolanaRpcOptions = {},
): Promise<DepositAudit[]> {
  const chains = (options.chains ?? CHAIN_NAMES).filter((chain) => isChainServed(chain));
  const page = options.page ?? AUDIT_PAGE;
  const results: DepositAudit[] = [];
  for (const chain of chains)
    results.push(CHAINS[chain].family === 'solana' ? await auditSolanaChain(chain, page, options) : await auditChain(chain, page));
  return results;
}

/** A Solana cluster: an error is reported, not thrown (as reconciliation does). */
async function auditSolanaChain(chain: ChainName, page: number, options: SolanaRpcOptions): Promise<DepositAudit> {
  const empty = { chain, atBlock: null, audited: 0, busy: 0, latePayments: 0, strayDeposits: 0 };
  const rpc = resolveSolanaRpc(chain, options);
  if (!rpc) return { ...empty, error: 'no RPC endpoint' };
  try {
    return await auditSolanaDeposits(chain, rpc, page);
  } catch (error) {
    return { ...empty, error: error instanceof Error ? error.message : String(error) };
  }
}

interface Finding {
  address: string;
  chargeId: string;
  token: string;
  amount: bigint;
  kind: 'late' | 'stray';
}

async function auditChain(chain: ChainName, page: number): Promise<DepositAudit> {
  const result: DepositAudit = { chain, atBlock: null, audited: 0, busy: 0, latePayments: 0, strayDeposits: 0 };
  const client = publicClientFor(chain);
  if (!client) return { ...result, error: 'no RPC endpoint' };
  const atBlock = await comparableBlock(client, chain);
  if (atBlock === null) return { ...result, error: 'the scanners have not run on this chain yet' };
  result.atBlock = atBlock;
  const block = await client.getBlock({ blockNumber: atBlock });
  const blockTime = new Date(Number(block.timestamp) * 1000);

  const db = getDb();
  const rows = await db
    .select({
      address: depositAddresses.address,
      chargeId: depositAddresses.chargeId,
      watchUntil: depositAddresses.watchUntil,
      token: charges.tokenAddress,
    })
    .from(depositAddresses)
    .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
    .where(
      and(
        eq(depositAddresses.chain, chain),
        eq(depositAddresses.family, 'evm'),
        // A reused address (ADR 0038) is read once, as its latest lease: open, or the one it was pooled after.
        sql`not exists (select 1 from deposit_addresses later where later.chain = ${depositAddresses.chain}
          and later.address = ${depositAddresses.address} and later.created_at > ${depositAddresses.createdAt})`,
      ),
    )
    .orderBy(sql`${depositAddresses.lastAuditedAt} asc nulls first`, asc(depositAddresses.derivationIndex))
    .limit(page);
  const busy = await busyAddresses(chain);
  const ready = rows.filter((row) => !busy.has(row.address.toLowerCase()));
  result.busy = rows.length - ready.length;
  const ledger = await expectedBalances(db, { chain, atBlock, addresses: ready.map((row) => row.address.toLowerCase()) });
  const expectedOf = new Map(ledger.map((row) => [`${row.address}:${row.token}`, row.expected]));

  const reads = ready.flatMap((row) => {
    const chargeToken = row.token.toLowerCase();
    const tokens = new Set([...CHAINS[chain].tokens.map((t) => t.address.toLowerCase()), chargeToken]);
    return [...tokens].map((token) => ({ row, token, isChargeToken: token === chargeToken }));
  });
  const findings: Finding[] = [];
  for (let i = 0; i < reads.length; i += READ_CONCURRENCY) {
    await Promise.all(
      reads.slice(i, i + READ_CONCURRENCY).map(async ({ row, token, isChargeToken }) => {
        const address = row.address.toLowerCase();
        const unexplained = (await balanceAt(client, address, token, atBlock)) - (expectedOf.get(`${address}:${token}`) ?? 0n);
        if (unexplained <= 0n) return;
        // The charge's own token is the watcher's while it watches (it records payments, on time or late).
        if (isChargeToken && row.watchUntil > blockTime) return;
        findings.push({ address: row.address, chargeId: row.chargeId, token, amount: unexplained, kind: isChargeToken ? 'late' : 'stray' });
      }),
    );
  }

  await db.transaction(async (tx) => {
    // Funds at a pooled address: out of the pool until they are returned (never leased with a balance).
    if (findings.length)
      await tx.delete(depositAddressPool).where(
        and(
          eq(depositAddressPool.chain, chain),
          inArray(
            depositAddressPool.address,
            findings.map((finding) => finding.address),
          ),
        ),
      );
    for (const finding of findings) {
      if (finding.kind === 'stray') {
        const inserted = await tx
          .insert(strayDeposits)
          .values({
            id: newId('strayDeposit'),
            chain,
            chargeId: finding.chargeId,
            address: getAddress(finding.address),
            tokenAddress: finding.token,
            amountBaseUnits: finding.amount,
            blockNumber: atBlock,
            blockHash: block.hash,
          })
          .onConflictDoNothing()
          .returning({ id: strayDeposits.id });
        result.strayDeposits += inserted.length;
        continue;
      }
      // Under the charge's lock, as every other writer of its payments and refunds.
      const [charge] = await tx.select().from(charges).where(eq(charges.id, finding.chargeId)).for('update');
      const [payment] = await tx
        .insert(payments)
        .values({
          id: newId('payment'),
          chargeId: finding.chargeId,
          chain,
          txHash: `balance:${block.hash}:${getAddress(finding.address)}`,
          logIndex: BALANCE_CHANGE_LOG_INDEX,
          fromAddress: '',
          toAddress: getAddress(finding.address),
          tokenAddress: finding.token,
          amountBaseUnits: finding.amount,
          blockNumber: atBlock,
          blockHash: block.hash,
          blockTime,
          status: 'confirmed',
          isLate: true,
        })
        .onConflictDoNothing()
        .returning();
      if (!payment || !charge) continue;
      await markLate(tx, [{ charge, payment }]);
      result.latePayments++;
    }
    if (ready.length)
      await tx
        .update(depositAddresses)
        .set({ lastAuditedAt: new Date() })
        .where(
          and(
            eq(depositAddresses.chain, chain),
            inArray(
              depositAddresses.address,
              ready.map((row) => row.address),
            ),
          ),
        );
  });
  result.audited = ready.length;
  for (const finding of findings)
    log.warn(finding.kind === 'late' ? 'late payment found at an old deposit address' : 'stray token found at a deposit address', {
      chain,
      address: finding.address,
      chargeId: finding.chargeId,
      token: finding.token,
      amountBaseUnits: finding.amount.toString(),
      atBlock: atBlock.toString(),
    });
  return result;
}
