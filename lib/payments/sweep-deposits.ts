/**
 * Sweeps: what a succeeded charge received at its deposit address moves on to the payee —
 * the merchant's service wallet, or `toAddress` for deliver-to-wallet and direct-transfer charges.
 *
 *  - Owed = confirmed, counted payments (late ones excluded) − sweeps already sent or in flight.
 *    Overpayments go to the payee too; the excess is on the charge's timeline (`charge.overpaid`) for
 *    the merchant to refund, as Coinbase Commerce does.
 *  - The deposit address holds no native coin for the fee: on EVM chains the gas tank tops up the exact
 *    need first (lib/payments/gas-tank.ts) and the sweep is signed on a later pass, once the top-up is
 *    mined; on Solana the tank is the sweep's fee payer (lib/payments/solana/sweep-solana.ts), so the
 *    sweep is signed at once and the tank's cost is recorded beside it.
 *  - Every step is an outbound transfer, recorded before broadcast and reconciled like the others, so
 *    a failed or interrupted sweep is retried on the next pass and never sent twice. A reverted sweep
 *    (status `failed`) no longer counts as in flight, so the next pass signs a new one; on Solana so
 *    does a sweep whose blockhash expired before it landed (it can never land after that).
 *  - Funds of charges that did not succeed (expired, canceled, failed underpaid, late payments) stay
 *    at the deposit address, recorded on the charge, for support to refund to the sender.
 *
 * Runs every few seconds from the scheduler; several processes may run it: the charge row lock
 * (SKIP LOCKED) keeps two sweepers off the same charge.
 */
import { address as solanaAddress } from '@solana/kit';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Hex } from 'viem';
import { CHAINS, type ChainInfo, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import { publicClientFor } from '@/lib/chains/clients';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, depositAddresses, outboundTransfers, payments, wallets, type ChargeRow, type WalletFamily } from '@/lib/db/schema';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { log } from '@/lib/log';
import { ensureMerchantWallets } from '@/lib/wallets/create-wallets';
import { depositAccount, solanaDepositSigner } from './deposit-addresses';
import { gasTankSolanaSigner, topUpGasIfShort } from './gas-tank';
import { broadcastTransfer, planTransfer, reconcileTransfer, signAndRecordTransfer } from './outbound-transfers';
import { recordSolanaSweep } from './solana/solana-transfers';
import { signSolanaSweep } from './solana/sweep-solana';
import { resolveSolanaRpc, type SolanaRpcOptions } from './solana/watch-solana';
import { tokenOfCharge } from '@/lib/charges/charge-token';

export type SweepOutcome = 'nothing_owed' | 'waiting_for_gas' | 'gas_sent' | 'swept' | 'not_sweepable';

/** Succeeded charges (EVM and Solana) with confirmed funds not yet swept (or whose sweep failed). */
export async function chargesAwaitingSweep(limit = 50): Promise<string[]> {
  const rows = await getDb().execute<{ id: string }>(sql`
    select c.id from ${charges} c
    join ${depositAddresses} d on d.charge_id = c.id
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
export async function sweepDueCharges(options: SolanaRpcOptions = {}): Promise<number> {
  let swept = 0;
  for (const chargeId of await chargesAwaitingSweep()) {
    if ((await sweepCharge(chargeId, options)) === 'swept') swept++;
  }
  return swept;
}

/** What one pass did, and the transfer it recorded (broadcast after commit); `txHash` and `payee` for the timeline. */
interface SweepStep {
  outcome: SweepOutcome;
  transferId?: string;
  txHash?: string;
  payee?: string;
}

/**
 * One step of a charge's sweep: top up gas (EVM), or sign and record the sweep. Call again until
 * `nothing_owed`. Broadcasts what it recorded once its transaction has committed.
 */
export async function sweepCharge(chargeId: string, options: SolanaRpcOptions = {}): Promise<SweepOutcome> {
  // A gas top-up in flight is brought up to date first (outside the transaction: it talks to the chain).
  // On Solana that is the fee record of a sweep in flight: reconciling it settles that sweep (an expired
  // one becomes `failed`, and this pass signs its replacement).
  const openTopUps = await getDb()
    .select()
    .from(outboundTransfers)
    .where(
      and(
        eq(outboundTransfers.chargeId, chargeId),
        eq(outboundTransfers.purpose, 'gas_topup'),
        inArray(outboundTransfers.status, ['signed', 'broadcast']),
      ),
    );
  for (const topUp of openTopUps) await reconcileTransfer(topUp, options);

  const step = await getDb().transaction(async (tx): Promise<SweepStep> => {
    const [charge] = await tx.select().from(charges).where(eq(charges.id, chargeId)).for('update', { skipLocked: true });
    if (!charge || charge.status !== 'succeeded') return { outcome: 'not_sweepable' };
    const chain = CHAINS[charge.chain as ChainName];
    const [deposit] = await tx.select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
    const token = tokenOfCharge(charge);
    if (!deposit || !token) return { outcome: 'not_sweepable' };

    const [received] = await tx
      .select({ total: sql<string>`coalesce(sum(${payments.amountBaseUnits}), 0)` })
      .from(payments)
      .where(and(eq(payments.chargeId, charge.id), eq(payments.status, 'confirmed'), eq(payments.isLate, false)));
    const transfers = await tx.select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, charge.id));
    const sweptOrInFlight = transfers
      .filter((t) => t.purpose === 'sweep' && t.status !== 'failed')
      .reduce((sum, t) => sum + t.amountBaseUnits, 0n);
    const owed = BigInt(received!.total) - sweptOrInFlight;
    if (owed <= 0n) return { outcome: 'nothing_owed' };

    const input = { charge, chain, deposit, token, owed, transfers };
    let signed: SweepStep;
    switch (deposit.family) {
      case 'evm':
        signed = await signEvmSweep(tx, input);
        break;
      case 'solana':
        signed = await signSolanaSweepStep(tx, input, options);
        break;
    }
    if (signed.outcome !== 'swept') return signed;
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: 'succeeded',
      toStatus: 'succeeded',
      actor: 'system:sweeper',
      type: 'charge.sweep_submitted',
      data: { txHash: signed.txHash, to: signed.payee, amountBaseUnits: owed.toString(), tokenAddress: token.address },
    });
    return signed;
  });

  if (step.transferId) await broadcastTransfer(step.transferId, options);
  return step.outcome;
}

interface SweepInput {
  charge: ChargeRow;
  chain: ChainInfo;
  deposit: typeof depositAddresses.$inferSelect;
  token: TokenInfo;
  owed: bigint;
  transfers: (typeof outboundTransfers.$inferSelect)[];
}

/** EVM: the gas tank tops the deposit address up to the sweep's exact gas, then (next pass) the deposit key signs it. */
async function signEvmSweep(tx: DbOrTx, { charge, chain, deposit, token, owed, transfers }: SweepInput): Promise<SweepStep> {
  const client = publicClientFor(chain.name);
  if (!client) return { outcome: 'not_sweepable' };
  if (
    transfers.some(
      (t) => t.purpose === 'gas_topup' && t.toAddress === deposit.address && (t.status === 'signed' || t.status === 'broadcast'),
    )
  ) {
    return { outcome: 'waiting_for_gas' };
  }
  const payee = (await payeeOf(tx, charge, 'evm')) as Hex;
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
  if (topUp) return { outcome: 'gas_sent', transferId: topUp.id };
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
  return { outcome: 'swept', transferId: sweep.id, txHash: sweep.txHash, payee };
}

/** Solana: one transaction signed by the deposit key, the gas tank paying its fee (and any token-account rent). */
async function signSolanaSweepStep(
  tx: DbOrTx,
  { charge, chain, deposit, token, owed }: SweepInput,
  options: SolanaRpcOptions,
): Promise<SweepStep> {
  const rpc = resolveSolanaRpc(chain.name, options);
  if (!rpc) return { outcome: 'not_sweepable' };
  const depositSigner = await solanaDepositSigner(deposit.derivationIndex);
  if (depositSigner.address !== deposit.address) {
    // DEPOSIT_HD_SEED is not the seed this address was derived from: signing would move nothing.
    log.error('solana deposit key does not match its address; check DEPOSIT_HD_SEED', { chargeId: charge.id, address: deposit.address });
    return { outcome: 'not_sweepable' };
  }
  const payee = await payeeOf(tx, charge, 'solana');
  const feePayer = await gasTankSolanaSigner();
  const signed = await signSolanaSweep(rpc, { feePayer, deposit: depositSigner, payee: solanaAddress(payee), token, amount: owed });
  if (signed.kind === 'fee_payer_short') {
    log.warn('gas tank short of SOL for a sweep; fund it (npm run admin -- gas-tank status)', {
      chain: chain.name,
      tank: feePayer.address,
      needed: signed.needed.toString(),
      balance: signed.balance.toString(),
    });
    return { outcome: 'waiting_for_gas' };
  }
  const sweep = await recordSolanaSweep(tx, {
    chargeId: charge.id,
    chain: chain.name,
    from: deposit.address,
    payee,
    token,
    amount: owed,
    feePayer: feePayer.address,
    signature: signed.signature,
    wireTransaction: signed.wireTransaction,
    feePayerCost: signed.feePayerCost,
  });
  return { outcome: 'swept', transferId: sweep.id, txHash: sweep.txHash, payee };
}

/** Where a charge's funds end: its toAddress when it has one, else the merchant's service wallet of the chain's family. */
async function payeeOf(tx: DbOrTx, charge: { merchantId: string; toAddress: string | null }, family: WalletFamily): Promise<string> {
  if (charge.toAddress) return charge.toAddress;
  const [existing] = await tx
    .select({ address: wallets.address })
    .from(wallets)
    .where(and(eq(wallets.merchantId, charge.merchantId), eq(wallets.family, family)));
  if (existing) return existing.address;
  const created = await ensureMerchantWallets(tx, charge.merchantId);
  return created.find((w) => w.family === family)!.address;
}
