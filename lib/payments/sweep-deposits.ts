/**
 * Sweeps: what a succeeded charge received at its deposit address moves on to the payee —
 * the merchant's service wallet, or `toAddress` for deliver-to-wallet and direct-transfer charges.
 *
 *  - Owed = confirmed, counted payments (late ones excluded) − sweeps already sent or in flight.
 *    Overpayments go to the payee too; the excess is on the charge's timeline (`charge.overpaid`) for
 *    the merchant to refund, as Coinbase Commerce does.
 *  - The deposit address holds no native coin for the fee: the gas tank tops up the exact need first
 *    (lib/payments/gas-tank.ts); the sweep is signed on a later pass, once the top-up is mined.
 *  - Every step is an outbound transfer, recorded before broadcast and reconciled like the others, so
 *    a failed or interrupted sweep is retried on the next pass and never sent twice. A reverted sweep
 *    (status `failed`) no longer counts as in flight, so the next pass signs a new one.
 *  - Funds of charges that did not succeed (expired, canceled, failed underpaid, late payments) stay
 *    at the deposit address, recorded on the charge, for support to refund to the sender.
 *
 * Runs every few seconds from the scheduler; several processes may run it: the charge row lock
 * (SKIP LOCKED) keeps two sweepers off the same charge.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Hex } from 'viem';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { publicClientFor } from '@/lib/chains/clients';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, depositAddresses, outboundTransfers, payments, wallets } from '@/lib/db/schema';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { ensureMerchantWallets } from '@/lib/wallets/create-wallets';
import { depositAccount } from './deposit-addresses';
import { topUpGasIfShort } from './gas-tank';
import { broadcastTransfer, planTransfer, reconcileTransfer, signAndRecordTransfer } from './outbound-transfers';

export type SweepOutcome = 'nothing_owed' | 'waiting_for_gas' | 'gas_sent' | 'swept' | 'not_sweepable';

/** Succeeded EVM charges with confirmed funds not yet swept (or whose sweep failed). */
export async function chargesAwaitingSweep(limit = 50): Promise<string[]> {
  const rows = await getDb().execute<{ id: string }>(sql`
    select c.id from ${charges} c
    join ${depositAddresses} d on d.charge_id = c.id and d.family = 'evm'
    where c.status = 'succeeded'
      and (select coalesce(sum(p.amount_base_units), 0) from ${payments} p
           where p.charge_id = c.id and p.status = 'confirmed' and not p.is_late)
        > (select coalesce(sum(t.amount_base_units), 0) from ${outboundTransfers} t
           where t.charge_id = c.id and t.purpose = 'sweep' and t.status <> 'failed')
    order by c.updated_at
    limit ${limit}`);
  return rows.map((row) => row.id);
}

/** The scheduler's entry point: one pass over every charge waiting for its sweep. */
export async function sweepDueCharges(): Promise<number> {
  let swept = 0;
  for (const chargeId of await chargesAwaitingSweep()) {
    if ((await sweepCharge(chargeId)) === 'swept') swept++;
  }
  return swept;
}

/** One step of a charge's sweep: top up gas, or sign and send the sweep. Call again until `nothing_owed`. */
export async function sweepCharge(chargeId: string): Promise<SweepOutcome> {
  // A gas top-up in flight is brought up to date first (outside the transaction: it talks to the chain).
  const openTopUps = await getDb()
    .select()
    .from(outboundTransfers)
    .where(
      and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'gas_topup'), inArray(outboundTransfers.status, ['signed', 'broadcast'])),
    );
  for (const topUp of openTopUps) await reconcileTransfer(topUp);

  const step = await getDb().transaction(async (tx) => {
    const [charge] = await tx.select().from(charges).where(eq(charges.id, chargeId)).for('update', { skipLocked: true });
    if (!charge || charge.status !== 'succeeded') return { outcome: 'not_sweepable' as const };
    const chain = CHAINS[charge.chain as ChainName];
    const [deposit] = await tx.select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
    const client = publicClientFor(chain.name);
    const token = chain.tokens.find((t) => t.address === charge.tokenAddress);
    if (!deposit || deposit.family !== 'evm' || !client || !token) return { outcome: 'not_sweepable' as const };

    const [received] = await tx
      .select({ total: sql<string>`coalesce(sum(${payments.amountBaseUnits}), 0)` })
      .from(payments)
      .where(and(eq(payments.chargeId, charge.id), eq(payments.status, 'confirmed'), eq(payments.isLate, false)));
    const transfers = await tx.select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, charge.id));
    const sweptOrInFlight = transfers
      .filter((t) => t.purpose === 'sweep' && t.status !== 'failed')
      .reduce((sum, t) => sum + t.amountBaseUnits, 0n);
    const owed = BigInt(received!.total) - sweptOrInFlight;
    if (owed <= 0n) return { outcome: 'nothing_owed' as const };
    if (transfers.some((t) => t.purpose === 'gas_topup' && t.toAddress === deposit.address && (t.status === 'signed' || t.status === 'broadcast'))) {
      return { outcome: 'waiting_for_gas' as const };
    }

    const payee = await payeeOf(tx, charge);
    const account = depositAccount(deposit.derivationIndex);
    const plan = await planTransfer(client, { from: account.address, recipient: payee, token, amount: owed });
    const topUp = await topUpGasIfShort(tx, {
      chain: chain.name,
      client,
      wallet: account.address,
      needed: plan.maxGasCost,
      reserved: token.isNative ? owed : 0n,
      chargeId: charge.id,
    });
    if (topUp) return { outcome: 'gas_sent' as const, transferId: topUp.id };

    const sweep = await signAndRecordTransfer(tx, {
      purpose: 'sweep',
      chargeId: charge.id,
      chain: chain.name,
      account,
      recipient: payee,
      token,
      amount: owed,
      plan,
      client,
    });
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: 'succeeded',
      toStatus: 'succeeded',
      actor: 'system:sweeper',
      type: 'charge.sweep_submitted',
      data: { txHash: sweep.txHash, to: payee, amountBaseUnits: owed.toString(), tokenAddress: token.address },
    });
    return { outcome: 'swept' as const, transferId: sweep.id };
  });

  if ('transferId' in step && step.transferId) await broadcastTransfer(step.transferId);
  return step.outcome;
}

/** Where a charge's funds end: its toAddress when it has one, else the merchant's EVM service wallet. */
async function payeeOf(
  tx: DbOrTx,
  charge: { merchantId: string; toAddress: string | null },
): Promise<Hex> {
  if (charge.toAddress) return charge.toAddress as Hex;
  const [existing] = await tx
    .select({ address: wallets.address })
    .from(wallets)
    .where(and(eq(wallets.merchantId, charge.merchantId), eq(wallets.family, 'evm')));
  if (existing) return existing.address as Hex;
  const created = await ensureMerchantWallets(tx, charge.merchantId);
  return created.find((w) => w.family === 'evm')!.address as Hex;
}
