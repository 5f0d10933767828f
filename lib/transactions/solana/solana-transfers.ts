/**
 * Recorded Solana transfers: the Solana half of the transaction engine (lib/transactions/), with the same three
 * steps — recorded in the caller's transaction before anything is sent, broadcast after commit, and
 * reconciled in the background.
 *
 * A row is `nonce` 0 (Solana accounts have no nonce: a transaction's lifetime is its blockhash),
 * `tx_hash` the signature, `raw_transaction` the base64 wire transaction.
 *
 * The fee record: the gas tank pays the sweep's fee (and the rent of a token account it creates) as the
 * transaction's fee payer, not by a transfer of its own. That cost gets its own row, purpose `gas_topup`
 * as on EVM chains (the gas tank paying a transfer's gas, a platform cost queryable per charge):
 * from the tank, to the deposit address whose sweep it paid for, in SOL, `tx_hash` = signature + "-fee"
 * ((chain, tx_hash) is unique), the same raw bytes. Its amount is the expected cost when signed and
 * becomes what the tank really spent (its balance change in the transaction) once finalized. Both rows
 * change status together (one UPDATE keyed by the signature): `failed` together when the transaction
 * expired unlanded (the tank paid nothing); once finalized the fee record is `confirmed` even when the
 * sweep failed on chain, since a landed transaction pays its fee either way.
 *
 * Reconciling: finalized → `confirmed` (or `failed` with the runtime's error); not seen and its blockhash still
 * valid → the same bytes again; never seen and its blockhash expired (it can never land on any fork) →
 *  - a sweep: `failed`, so the next sweep pass signs a new transaction (two sweeps are never live at once);
 *  - any other spend (the user or merchant authorised this movement): signed again, the same movement with a
 *    new blockhash, on the same row and fee record, the old signature kept as an attempt — as an EVM fee bump
 *    re-signs the same nonce, so nobody pays or acts twice because a node dropped a transaction
 *    (./resign-solana-transfer.ts: at most MAX_SOLANA_RESIGNS times, the balance and tank checked again, the
 *    old signature looked up once more first). Only when it cannot be signed again is it `failed`
 *    (NOT_SENT_ERROR: nothing was taken) and its outcome hook runs (`payment.failed` for a balance payment).
 *
 * Sweeps are signed by lib/payments/sweep-charges.ts; every other Solana spend (balance payments, withdrawals,
 * refunds, wallet sends) by `recordSolanaTransfer` below, the Solana twin of recordTransfer: the same
 * idempotency, sender lock, transfer gate, in-flight check and gas sponsorship caps, the gas tank paying the
 * fee as fee payer (its own balance checked under its lock), and the same two rows.
 *
 * When a transfer ends, the purpose's outcome hook (lib/jobs/transfer-outcome-hooks.ts: a refund's webhook, a
 * failed balance payment's `payment.failed`) runs in the transaction that records the end, as on EVM.
 *
 * Every status write follows the transfer table (lib/transactions/state.ts) through `leadingTo`. A transaction
 * in a block that is not yet finalized stays `broadcast` here (the reconciler looks again); once finalized it
 * was in a block, so its rows pass `included` on their way to `confirmed` / `failed`, in one transaction —
 * the table's promise (only an included transfer reaches a final status at depth) holds on both chains.
 *
 * Crash points (lib/crash-points.ts) as on EVM: `transfer.sent` once a node took the bytes, before the row says
 * so; `transfer.settling` before the final status commits (test/faults/solana-faults.test.ts kills there).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { KeyPairSigner } from '@solana/kit';
import type { Address } from 'viem';
import { SOLANA_NATIVE_MINT, type ChainName, type TokenInfo } from '@/lib/chains/registry';
import type { SolanaRpc } from '@/lib/chains/solana-rpc';
import { crashPoint } from '@/lib/crash-points';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { outboundTransfers, type TransferStatus } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { assertSponsorshipAllowed, type GasSponsor } from '@/lib/transactions/gas-sponsorship';
import { lockSender } from '@/lib/transactions/lock-sender';
import type { RecordedTransfer } from '@/lib/transactions/record-transfer';
import { transferMachine, type TransferPurpose } from '@/lib/transactions/state';
import { outcomeHookFor, type TransferOutcomeHooks } from '@/lib/transactions/transfer-outcome';
import { authorizeTransfer, describeAuthority, type TransferAuthorization } from '@/lib/transactions/transfer-policy';
import { signSolanaTransfer, type PreparedSolanaTransfer } from './prepare-solana-transfer';
import { resignSolanaTransfer } from './resign-solana-transfer';
import { SOLANA_FEE_RECORD_SUFFIX, assertSolanaSenderHolds, assertSolanaTankCanPay } from './solana-spend-rules';
import {
  decodeWireTransaction,
  feePayerSpent,
  sendSolanaTransaction,
  solanaTransactionOutcome,
  type SolanaTransferRpc,
} from './sweep-solana';

type OutboundTransferRow = typeof outboundTransfers.$inferSelect;

export const EXPIRED_ERROR = 'blockhash expired before the transaction landed; the next pass signs a new one';
/** Why a user-authorised spend failed once it could not be signed again (resign-solana-transfer.ts): nothing left the wallet. */
export const NOT_SENT_ERROR = 'not sent, nothing was taken: its transaction expired before it landed';

/** The row recording what the gas tank paid for a transaction (see the header), not a transfer of its own. */
export function isSolanaFeeRecord(transfer: { txHash: string }): boolean {
  return transfer.txHash.endsWith(SOLANA_FEE_RECORD_SUFFIX);
}

/** Records a signed sweep (status `signed`) and the gas tank's cost for it, in the caller's transaction. */
export async function recordSolanaSweep(
  tx: DbOrTx,
  input: {
    chargeId: string;
    chain: ChainName;
    from: string;
    payee: string;
    token: TokenInfo;
    amount: bigint;
    feePayer: string;
    signature: string;
    wireTransaction: string;
    feePayerCost: bigint;
  },
): Promise<OutboundTransferRow> {
  const [sweep] = await insertSolanaRows(tx, {
    chargeId: input.chargeId,
    chain: input.chain,
    signature: input.signature,
    wireTransaction: input.wireTransaction,
    transfer: {
      purpose: 'sweep',
      authority: 'system:sweep',
      from: input.from,
      to: input.payee,
      token: input.token,
      amount: input.amount,
    },
    fee: { feePayer: input.feePayer, cost: input.feePayerCost },
  });
  return sweep!;
}

/**
 * Step 1 of a Solana spend, in the caller's transaction (see the header): nothing leaves the server. The
 * sponsor's daily cap counts the tank's fee records as it counts EVM top-ups.
 */
export async function recordSolanaTransfer(
  tx: DbOrTx,
  input: {
    prepared: PreparedSolanaTransfer;
    signer: KeyPairSigner;
    purpose: TransferPurpose;
    authorization: TransferAuthorization;
    chargeId?: string | null;
    gasSponsor: GasSponsor;
    idempotency?: { scope: string; key: string };
    senderLabel?: string;
  },
): Promise<RecordedTransfer> {
  const { prepared } = input;
  if (input.signer.address !== prepared.from) throw new Error('recordSolanaTransfer: the signer is not the prepared sender');
  if (input.idempotency) {
    const { scope, key } = input.idempotency;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`transfer-idempotency:${scope}:${key}`}, 0))`);
    const [existing] = await tx
      .select()
      .from(outboundTransfers)
      .where(and(eq(outboundTransfers.idempotencyScope, scope), eq(outboundTransfers.idempotencyKey, key)));
    if (existing) return { transfer: existing, replayed: true };
  }
  const { token, amount } = prepared.spend;
  await lockSender(tx, prepared.chain, prepared.from as Address);
  await authorizeTransfer(tx, { prepared, purpose: input.purpose, chargeId: input.chargeId, authorization: input.authorization });
  await assertSolanaSenderHolds(tx, prepared, { label: input.senderLabel });
  await assertSponsorshipAllowed(tx, { chain: prepared.chain, sponsor: input.gasSponsor, gasLimit: 0n });
  await assertSolanaTankCanPay(tx, prepared);

  const signed = await signSolanaTransfer(prepared, input.signer);
  const [transfer] = await insertSolanaRows(tx, {
    chargeId: input.chargeId ?? null,
    chain: prepared.chain,
    signature: signed.signature,
    wireTransaction: signed.wireTransaction,
    transfer: {
      purpose: input.purpose,
      authority: describeAuthority(input.authorization.authority),
      from: prepared.from,
      to: prepared.spend.recipient,
      token,
      amount,
      idempotency: input.idempotency,
    },
    fee: { feePayer: prepared.tank.address, cost: prepared.feePayerCost, sponsor: input.gasSponsor },
  });
  return { transfer: transfer!, replayed: false };
}

/** The transfer's row and the tank's fee record (see the header), one transaction's two rows. */
async function insertSolanaRows(
  tx: DbOrTx,
  input: {
    chargeId: string | null;
    chain: ChainName;
    signature: string;
    wireTransaction: string;
    transfer: {
      purpose: TransferPurpose;
      authority: string;
      from: string;
      to: string;
      token: TokenInfo;
      amount: bigint;
      idempotency?: { scope: string; key: string };
    };
    fee: { feePayer: string; cost: bigint; sponsor?: GasSponsor };
  },
): Promise<OutboundTransferRow[]> {
  const common = {
    chargeId: input.chargeId,
    chain: input.chain,
    nonce: 0,
    rawTransaction: input.wireTransaction,
    status: 'signed' as const,
  };
  return tx
    .insert(outboundTransfers)
    .values([
      {
        ...common,
        id: newId('outboundTransfer'),
        purpose: input.transfer.purpose,
        authority: input.transfer.authority,
        fromAddress: input.transfer.from,
        toAddress: input.transfer.to,
        tokenAddress: input.transfer.token.address,
        amountBaseUnits: input.transfer.amount,
        txHash: input.signature,
        idempotencyScope: input.transfer.idempotency?.scope ?? null,
        idempotencyKey: input.transfer.idempotency?.key ?? null,
      },
      {
        ...common,
        id: newId('outboundTransfer'),
        purpose: 'gas_topup',
        authority: 'system:gas_topup',
        fromAddress: input.fee.feePayer,
        toAddress: input.transfer.from,
        tokenAddress: SOLANA_NATIVE_MINT,
        amountBaseUnits: input.fee.cost,
        txHash: `${input.signature}${SOLANA_FEE_RECORD_SUFFIX}`,
        sponsorMerchantId: input.fee.sponsor?.merchantId ?? null,
        sponsorUserId: input.fee.sponsor?.userId ?? null,
      },
    ])
    .returning();
}

/** Step 2: send the recorded bytes. Safe to repeat. Returns whether the cluster accepted (or already has) them. */
export async function broadcastSolanaTransfer(rpc: SolanaTransferRpc, transfer: OutboundTransferRow): Promise<boolean> {
  if (transfer.status !== 'signed') return transfer.status !== 'failed';
  try {
    await sendSolanaTransaction(rpc, transfer.rawTransaction);
    crashPoint('transfer.sent');
  } catch (error) {
    // Already processed: the node's preflight refuses it, but the cluster has it, which is what we wanted.
    const outcome = await solanaTransactionOutcome(rpc, transfer.rawTransaction).catch(() => undefined);
    if (outcome?.kind !== 'finalized' && outcome?.kind !== 'landing') {
      const message = error instanceof Error ? error.message : String(error);
      log.warn('solana broadcast failed; the reconciler will retry', { transferId: transfer.id, error: message });
      // Kept on the rows for support (why a sweep is stuck until its blockhash expires), status unchanged.
      await noteOnSigned(transfer, `broadcast refused: ${message}`.slice(0, 500));
      return false;
    }
  }
  await setStatus(transfer, { status: 'broadcast', error: null });
  return true;
}

/** Brings a Solana transfer (either of its two rows) up to date with the cluster. */
export async function reconcileSolanaTransfer(
  rpc: SolanaRpc,
  transfer: OutboundTransferRow,
  hooks: Partial<TransferOutcomeHooks> = {},
): Promise<TransferStatus> {
  if (transfer.status !== 'signed' && transfer.status !== 'broadcast') return transfer.status;
  const wasAccepted = transfer.status === 'broadcast' || (await broadcastSolanaTransfer(rpc, transfer));
  const outcome = await solanaTransactionOutcome(rpc, transfer.rawTransaction);
  switch (outcome.kind) {
    case 'finalized': {
      const status = outcome.err === null ? ('confirmed' as const) : ('failed' as const);
      const { signature } = decodeWireTransaction(transfer.rawTransaction);
      const spent = await feePayerSpent(rpc, signature).catch(() => undefined);
      const row = (txHash: string, to: TransferStatus) =>
        and(
          eq(outboundTransfers.chain, transfer.chain),
          eq(outboundTransfers.txHash, txHash),
          inArray(outboundTransfers.status, transferMachine.leadingTo(to)),
        );
      await getDb().transaction(async (tx) => {
        // Finalized means it was in a block: both rows still open pass `included` (see the header).
        await tx
          .update(outboundTransfers)
          .set({ status: 'included' })
          .where(and(bothRows(transfer), inArray(outboundTransfers.status, transferMachine.from(['signed', 'broadcast'], 'included'))));
        const reason = outcome.err === null ? undefined : `failed on chain: ${stringify(outcome.err)}`;
        const [ended] = await tx
          .update(outboundTransfers)
          .set({ status, error: reason ?? null })
          .where(row(signature, status))
          .returning();
        // The purpose's hook, once: only the pass whose update ended the row runs it.
        const hook = ended && outcomeHookFor(hooks, ended.purpose);
        if (hook) await hook(tx, ended, { status, ...(reason ? { reason } : {}) });
        crashPoint('transfer.settling');
        // A landed transaction charged the tank even if it failed (its fee; the rent only if it succeeded):
        // the fee record is confirmed either way, at what the tank really spent.
        await tx
          .update(outboundTransfers)
          .set({ status: 'confirmed', error: null, ...(spent === undefined ? {} : { amountBaseUnits: spent }) })
          .where(row(`${signature}${SOLANA_FEE_RECORD_SUFFIX}`, 'confirmed'));
      });
      return isSolanaFeeRecord(transfer) ? 'confirmed' : status;
    }
    case 'landing':
      if (!wasAccepted) await setStatus(transfer, { status: 'broadcast', error: null });
      return 'broadcast';
    case 'not_seen':
      // Dropped by the leader or still on its way: same bytes again (they cannot land twice).
      if (transfer.status === 'broadcast') {
        await sendSolanaTransaction(rpc, transfer.rawTransaction).catch((error: unknown) => {
          log.warn('solana re-broadcast failed; will retry', {
            transferId: transfer.id,
            error: error instanceof Error ? error.message : String(error),
          });
        });
      }
      return wasAccepted ? 'broadcast' : 'signed';
    case 'expired': {
      // A user-authorised spend is signed again with a new blockhash, the same movement (resign-solana-transfer.ts).
      let reason = EXPIRED_ERROR;
      if (transfer.purpose !== 'sweep' && !isSolanaFeeRecord(transfer)) {
        const resign = await resignSolanaTransfer(rpc, transfer);
        if (resign.kind === 'resigned') {
          const accepted = await broadcastSolanaTransfer(rpc, { ...resign.transfer, status: 'signed' });
          return accepted ? 'broadcast' : resign.transfer.status;
        }
        if (resign.kind === 'unchanged') return transfer.status;
        reason = `${NOT_SENT_ERROR} (${resign.reason})`.slice(0, 500);
      }
      await getDb().transaction(async (tx) => {
        const ended = await tx
          .update(outboundTransfers)
          .set({ status: 'failed', error: reason })
          .where(and(bothRows(transfer), inArray(outboundTransfers.status, transferMachine.leadingTo('failed'))))
          .returning();
        const main = ended.find((row) => !isSolanaFeeRecord(row));
        const hook = main && outcomeHookFor(hooks, main.purpose);
        if (hook) await hook(tx, main, { status: 'failed', reason });
      });
      return 'failed';
    }
  }
}

/** One UPDATE over both rows of a transaction (the transfer and its fee record), from the statuses the table allows. */
async function setStatus(transfer: OutboundTransferRow, change: { status: TransferStatus; error: string | null }): Promise<void> {
  await getDb()
    .update(outboundTransfers)
    .set({ status: change.status, error: change.error })
    .where(and(bothRows(transfer), inArray(outboundTransfers.status, transferMachine.leadingTo(change.status))));
}

/** Keeps why a broadcast was refused on both rows while they are still `signed` (no status change). */
async function noteOnSigned(transfer: OutboundTransferRow, error: string): Promise<void> {
  await getDb()
    .update(outboundTransfers)
    .set({ error })
    .where(and(bothRows(transfer), eq(outboundTransfers.status, 'signed')));
}

/** The transfer and its fee record: the rows of one Solana transaction. */
function bothRows(transfer: OutboundTransferRow) {
  const signature = transfer.txHash.replace(new RegExp(`${SOLANA_FEE_RECORD_SUFFIX}$`), '');
  return and(
    eq(outboundTransfers.chain, transfer.chain),
    inArray(outboundTransfers.txHash, [signature, `${signature}${SOLANA_FEE_RECORD_SUFFIX}`]),
  );
}

function stringify(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner));
}
