/**
 * The slow pass over every Solana deposit address (./audit-deposit-addresses.ts runs it per Solana cluster;
 * docs/adr/0033-every-address-in-the-books.md, "Solana"). Each run takes the AUDIT_PAGE deposit addresses read
 * longest ago, reads their SOL and SPL balances (every registry token and the charge's token) at 'finalized',
 * and compares each with the ledger at its reading's slot C (payments and strays of a slot ≤ C, transfers out
 * once finalized: ./reconcile-solana.ts's rule). Balance the ledger does not explain becomes a record:
 *
 *  - in the charge's token, once the address is past its watch window: a late payment. The receiving account
 *    (the address for SOL, its associated token account for a mint) is listed from the watcher's receive
 *    cursor (getSignaturesForAddress, 'finalized') and each transfer into it not yet recorded is a payment
 *    with its signature, payer, slot and block time — so its refund goes back to its payer — recorded late
 *    (`markLate`: `charge.late_payment`, stranded funds, refundable). What those transfers do not explain (no
 *    transaction a wallet would build: an airdrop, a program's inner transfer) is a `balance:` payment at C,
 *    refundable by claim link as on EVM;
 *  - in any other registry token (SOL sent to a USDC charge, USDC to a SOL charge), at any time: a stray
 *    deposit (stray_deposits, in the ledger from then on). Mints outside the registry are not read.
 *
 * An address with a transfer out on its way (or recorded after the run began) waits for the next run. While
 * the address is watched, its charge's token is the watcher's alone.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import type { SolanaRpc } from '@/lib/chains/solana-rpc';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, outboundTransfers, payments, strayDeposits } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { markLate } from '@/lib/payments/settle-charge';
import { findReferencedTransfers } from '@/lib/payments/solana/find-transfers';
import { BALANCE_CHANGE_LOG_INDEX } from '@/lib/scanner/types';
import { IN_FLIGHT_STATUSES } from '@/lib/transactions/state';
import { balanceOf } from './reconcile-solana';

const READ_CONCURRENCY = 8;

/** One cluster's run (the shape of audit-deposit-addresses.ts's DepositAudit; atBlock is the finalized slot read first). */
interface SolanaDepositAudit {
  chain: ChainName;
  atBlock: bigint | null;
  audited: number;
  busy: number;
  latePayments: number;
  strayDeposits: number;
}

interface Finding {
  deposit: { id: string; address: string; chargeId: string; receiveCursor: string | null };
  token: string;
  amount: bigint;
  slot: bigint;
  kind: 'late' | 'stray';
}

export async function auditSolanaDeposits(chain: ChainName, rpc: SolanaRpc, page: number): Promise<SolanaDepositAudit> {
  const result: SolanaDepositAudit = { chain, atBlock: null, audited: 0, busy: 0, latePayments: 0, strayDeposits: 0 };
  const startedAt = new Date();
  const atBlock = await rpc.getSlot({ commitment: 'finalized' }).send();
  result.atBlock = atBlock;
  const db = getDb();
  const rows = await db
    .select({
      id: depositAddresses.id,
      address: depositAddresses.address,
      chargeId: depositAddresses.chargeId,
      watchUntil: depositAddresses.watchUntil,
      receiveCursor: depositAddresses.receiveCursor,
      token: charges.tokenAddress,
    })
    .from(depositAddresses)
    .innerJoin(charges, eq(charges.id, depositAddresses.chargeId))
    .where(and(eq(depositAddresses.chain, chain), eq(depositAddresses.family, 'solana')))
    .orderBy(sql`${depositAddresses.lastAuditedAt} asc nulls first`, asc(depositAddresses.derivationIndex))
    .limit(page);
  if (!rows.length) return result;

  // Chain first: every balance with the finalized slot it was read at.
  const work = rows.flatMap((row) => {
    const tokens = new Set([...CHAINS[chain].tokens.map((t) => t.address), row.token]);
    return [...tokens].map((token) => ({ row, token }));
  });
  const readings: { row: (typeof rows)[number]; token: string; actual: bigint; slot: bigint }[] = [];
  for (let i = 0; i < work.length; i += READ_CONCURRENCY) {
    readings.push(
      ...(await Promise.all(
        work.slice(i, i + READ_CONCURRENCY).map(async ({ row, token }) => {
          const isNative = CHAINS[chain].tokens.some((t) => t.isNative && t.address === token);
          return { row, token, ...(await balanceOf(rpc, address(row.address), isNative ? undefined : address(token), atBlock)) };
        }),
      )),
    );
  }

  // Then the records, as they are now.
  const ids = rows.map((row) => row.address);
  const [received, strays, outgoing] = await Promise.all([
    db
      .select({ to: payments.toAddress, token: payments.tokenAddress, amount: payments.amountBaseUnits, slot: payments.blockNumber })
      .from(payments)
      .where(and(eq(payments.chain, chain), inArray(payments.toAddress, ids), sql`${payments.status} <> 'dropped'`)),
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
        from: outboundTransfers.fromAddress,
        token: outboundTransfers.tokenAddress,
        amount: outboundTransfers.amountBaseUnits,
        status: outboundTransfers.status,
        createdAt: outboundTransfers.createdAt,
      })
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.chain, chain), inArray(outboundTransfers.fromAddress, ids))),
  ]);
  const busy = new Set(
    outgoing.filter((t) => (IN_FLIGHT_STATUSES as readonly string[]).includes(t.status) || t.createdAt >= startedAt).map((t) => t.from),
  );
  const sum = (list: { amount: bigint }[]) => list.reduce((total, row) => total + row.amount, 0n);
  const now = new Date();
  const findings: Finding[] = [];
  for (const { row, token, actual, slot } of readings) {
    if (busy.has(row.address)) continue;
    const isChargeToken = token === row.token;
    // The charge's own token is the watcher's while it watches (it records payments, on time or late).
    if (isChargeToken && row.watchUntil > now) continue;
    const expected =
      sum(received.filter((p) => p.to === row.address && p.token === token && p.slot <= slot)) +
      sum(strays.filter((d) => d.address === row.address && d.token === token && d.slot <= slot)) -
      sum(outgoing.filter((t) => t.from === row.address && t.token === token && t.status === 'confirmed'));
    if (actual - expected <= 0n) continue;
    findings.push({ deposit: row, token, amount: actual - expected, slot, kind: isChargeToken ? 'late' : 'stray' });
  }

  for (const finding of findings) {
    try {
      if (finding.kind === 'stray') result.strayDeposits += await recordStray(chain, finding);
      else result.latePayments += await recordLate(chain, rpc, finding);
    } catch (error) {
      // Found again next run (the ledger still does not explain it).
      log.warn('slow pass: could not record a finding at a Solana deposit address', { chain, chargeId: finding.deposit.chargeId, error });
    }
  }
  const ready = rows.filter((row) => !busy.has(row.address));
  if (ready.length)
    await db
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
  result.audited = ready.length;
  result.busy = rows.length - ready.length;
  for (const finding of findings)
    log.warn(finding.kind === 'late' ? 'late payment found at an old deposit address' : 'stray token found at a deposit address', {
      chain,
      address: finding.deposit.address,
      chargeId: finding.deposit.chargeId,
      token: finding.token,
      amountBaseUnits: finding.amount.toString(),
      atSlot: finding.slot.toString(),
    });
  return result;
}

async function recordStray(chain: ChainName, finding: Finding): Promise<number> {
  const inserted = await getDb()
    .insert(strayDeposits)
    .values({
      id: newId('strayDeposit'),
      chain,
      chargeId: finding.deposit.chargeId,
      address: finding.deposit.address,
      tokenAddress: finding.token,
      amountBaseUnits: finding.amount,
      blockNumber: finding.slot,
      blockHash: '',
    })
    .onConflictDoNothing()
    .returning({ id: strayDeposits.id });
  return inserted.length;
}

/** The transfers behind an unexplained rise in the charge's token, recorded late; what they leave unexplained, a `balance:` payment. */
async function recordLate(chain: ChainName, rpc: SolanaRpc, finding: Finding): Promise<number> {
  const { deposit, token } = finding;
  const native = CHAINS[chain].tokens.find((t) => t.isNative)!;
  const splToken = token === native.address ? undefined : token;
  const listAddress = splToken
    ? (await findAssociatedTokenPda({ owner: address(deposit.address), mint: address(splToken), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0]
    : deposit.address;
  const found = await findReferencedTransfers(rpc, {
    listAddress,
    recipient: deposit.address,
    commitment: 'finalized',
    ...(splToken ? { splToken } : {}),
    ...(deposit.receiveCursor ? { untilSignature: deposit.receiveCursor } : {}),
  });
  const blockTimeOfReading = await rpc
    .getBlockTime(finding.slot)
    .send()
    .catch(() => null);

  return getDb().transaction(async (tx) => {
    // Under the charge's lock, as every other writer of its payments and refunds.
    const [charge] = await tx.select().from(charges).where(eq(charges.id, deposit.chargeId)).for('update');
    if (!charge) return 0;
    const known = new Set(
      (await tx.select({ txHash: payments.txHash }).from(payments).where(eq(payments.chargeId, deposit.chargeId))).map((p) => p.txHash),
    );
    const fresh = found.transfers.filter((transfer) => !known.has(transfer.signature));
    const explained = fresh.filter((transfer) => transfer.slot <= finding.slot).reduce((total, transfer) => total + transfer.received, 0n);
    const common = {
      chargeId: deposit.chargeId,
      chain,
      toAddress: deposit.address,
      tokenAddress: token,
      status: 'confirmed' as const,
      isLate: true,
    };
    const values = [
      ...fresh.map((transfer) => ({
        ...common,
        id: newId('payment'),
        txHash: transfer.signature,
        logIndex: 0,
        fromAddress: transfer.payer,
        amountBaseUnits: transfer.received,
        blockNumber: transfer.slot,
        blockHash: '',
        blockTime: transfer.blockTime === null ? null : new Date(Number(transfer.blockTime) * 1000),
      })),
      ...(finding.amount > explained
        ? [
            {
              ...common,
              id: newId('payment'),
              txHash: `balance:${finding.slot}:${deposit.address}`,
              logIndex: BALANCE_CHANGE_LOG_INDEX,
              fromAddress: '',
              amountBaseUnits: finding.amount - explained,
              blockNumber: finding.slot,
              blockHash: '',
              blockTime: blockTimeOfReading === null ? null : new Date(Number(blockTimeOfReading) * 1000),
            },
          ]
        : []),
    ];
    const inserted = values.length ? await tx.insert(payments).values(values).onConflictDoNothing().returning() : [];
    await markLate(
      tx,
      inserted.map((payment) => ({ charge, payment })),
    );
    // The watcher no longer lists this address: the cursor only saves the next run from listing it all again.
    if (found.finalizedThrough)
      await tx
        .update(depositAddresses)
        .set({ receiveCursor: found.finalizedThrough })
        .where(
          and(eq(depositAddresses.id, deposit.id), sql`${depositAddresses.receiveCursor} is not distinct from ${deposit.receiveCursor}`),
        );
    return inserted.length;
  });
}
