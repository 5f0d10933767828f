/**
 * Refund (part of) what a charge received (POST /api/charges/{chargeId}/refunds, the dashboard's Refund
 * button). The spec is silent on refunds; this follows Stripe, Coinbase Commerce and BTCPay:
 *
 *  - Amount: default everything still refundable (received − refunded; over- and late payments count).
 *    More than that → 422 refund_exceeds_refundable. Funds that already left Chargeport (a direct
 *    transfer or deliver-to-wallet charge whose sweep went to its toAddress) → 409 refund_not_possible.
 *  - Paid from where the funds are now: the charge's deposit address before its sweep, the merchant wallet
 *    after it (while the sweep is still on its way, the refund waits for it to land). The gas tank pays the
 *    fee (the merchant's daily cap).
 *  - Destination: the address that sent the funds (for a balance payment, the payer's Chargeport wallet),
 *    unless `toAddress` is given. Required when the sender was a contract (a smart-contract wallet or an
 *    exchange's hot wallet cannot be assumed to give the money back to the right person) or when the charge
 *    was paid from several addresses.
 *  - Exactly once: the refund and its transfer are recorded in one transaction under the charge's lock (two
 *    refunds at once cannot over-refund), with the request's Idempotency-Key (or the form's id) as the
 *    transfer's idempotency id, so a retried request is the same refund. `refund.created` is emitted in
 *    that transaction; `refund.succeeded` / `refund.failed` when the transfer ends (settle-refund.ts).
 */
import { and, eq } from 'drizzle-orm';
import { getAddress, isAddress, type Address } from 'viem';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, EVM_NATIVE_TOKEN_ADDRESS, type ChainName } from '@/lib/chains/registry';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { getDb, type DbOrTx } from '@/lib/db/client';
import {
  charges,
  depositAddresses,
  outboundTransfers,
  refunds,
  wallets,
  type ApiKeyMode,
  type ChargeRow,
  type RefundSource,
} from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId, randomBase62 } from '@/lib/ids';
import { formatAmount, parseAmount } from '@/lib/money';
import { depositAccount } from '@/lib/payments/deposit-addresses';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { prepareTransfer } from '@/lib/transactions/prepare-transfer';
import { recordTransfer } from '@/lib/transactions/record-transfer';
import { accountFromKey } from '@/lib/transactions/account-from-key';
import type { TransferAuthority } from '@/lib/transactions/transfer-policy';
import { ensureMerchantWallets } from '@/lib/wallets/create-wallets';
import { openWalletKey } from '@/lib/wallets/envelope';
import { chargeFunds, type ChargeFunds } from './charge-funds';
import { emitRefundEvent } from './emit-refund-event';
import type { CreateRefundBody, RefundResource } from './schemas';
import { getRefund } from './list-refunds';

export interface RefundContext {
  merchantId: string;
  mode: ApiKeyMode;
  /** api_key:…, member:… */
  actor: string;
}

/** An id for a refund form: submitting it twice is one refund. */
export function newRefundRequestId(): string {
  return `rfq_${randomBase62(22)}`;
}

export async function createRefund(input: {
  ctx: RefundContext;
  chargeId: string;
  body: CreateRefundBody;
  /** The request's Idempotency-Key (or the form's id). */
  idempotencyKey?: string;
  /** Runs in the recording transaction once a new refund is recorded (the dashboard's audit entry). */
  onRecorded?: (tx: DbOrTx, refund: { id: string; amountBaseUnits: bigint; destination: string; txHash: string }) => Promise<void>;
}): Promise<{ refund: RefundResource; replayed: boolean }> {
  const { ctx } = input;
  const charge = await chargeOf(getDb(), ctx, input.chargeId);
  const token = tokenOfCharge(charge);
  const chain = CHAINS[charge.chain as ChainName];
  if (chain.family !== 'evm') {
    throw new AppError('refund_not_possible', `Refunds on ${chain.displayName} are not available yet: refund from your own wallet.`);
  }
  const scope = `refund:${ctx.merchantId}:${ctx.mode}`;
  const key = input.idempotencyKey ?? newRefundRequestId();
  const replay = await findReplay(getDb(), scope, key, input);
  if (replay) return { refund: replay, replayed: true };

  const amount = parseRequestedAmount(input.body.amount, token.decimals, token.symbol);
  const funds = await chargeFunds(getDb(), charge);
  const plan = planRefund(funds, amount ?? funds.refundable, { symbol: token.symbol, decimals: token.decimals });
  const destination = await refundDestination(charge, funds, input.body.toAddress);
  const source = await sourceWallet(charge, plan.source, funds);
  const prepared = await prepareTransfer({
    chain: chain.name,
    from: source.address,
    spend: { token, amount: plan.amount, recipient: destination },
    gasSponsored: true,
  });

  const created = await getDb().transaction(async (tx) => {
    const locked = await chargeOf(tx, ctx, charge.id, { lock: true });
    // The same request on another instance held the lock first: its refund is the answer (not "nothing left").
    const raced = await findReplay(tx, scope, key, input);
    if (raced) return { raced };
    // Re-checked under the lock: a refund or sweep that committed meanwhile is counted.
    const now = planRefund(await chargeFunds(tx, locked), plan.amount, { symbol: token.symbol, decimals: token.decimals });
    if (now.source !== plan.source) throw new AppError('refund_not_possible', 'The charge’s funds just moved. Try again.');
    const recorded = await recordTransfer(tx, {
      prepared,
      signer: await source.signer(),
      purpose: 'refund',
      // The transfer gate sends a key's or a member's refund to an address that paid this charge only (N2).
      authorization: { authority: refundAuthority(ctx), destination: { class: 'original_payer' } },
      chargeId: charge.id,
      gasSponsor: { merchantId: ctx.merchantId },
      idempotency: { scope, key },
      senderLabel: plan.source === 'merchant_wallet' ? 'Your merchant wallet' : 'The charge’s deposit address',
    });
    if (recorded.replayed) return { recorded, refundId: await refundIdOf(tx, recorded.transfer.id) };
    const refundId = newId('refund');
    await tx.insert(refunds).values({
      id: refundId,
      chargeId: charge.id,
      merchantId: ctx.merchantId,
      mode: ctx.mode,
      transferId: recorded.transfer.id,
      chain: chain.name,
      tokenAddress: token.address,
      amountBaseUnits: plan.amount,
      destination,
      source: plan.source,
      reason: input.body.reason ?? null,
      actor: ctx.actor,
    });
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: locked.status,
      toStatus: locked.status,
      actor: ctx.actor,
      type: 'charge.refund_created',
      data: { refundId, amountBaseUnits: plan.amount.toString(), destination, source: plan.source, txHash: recorded.transfer.txHash },
    });
    await emitRefundEvent(tx, { refundId, type: 'refund.created' });
    await input.onRecorded?.(tx, { id: refundId, amountBaseUnits: plan.amount, destination, txHash: recorded.transfer.txHash });
    return { recorded, refundId };
  });
  if (created.raced) return { refund: created.raced, replayed: true };
  if (!created.recorded.replayed) await submitTransfer(created.recorded, { waitForGasMs: 0 });
  const refund = await getRefund(getDb(), { merchantId: ctx.merchantId, mode: ctx.mode, refundId: created.refundId });
  return { refund: refund!, replayed: created.recorded.replayed };
}

/** The gate's authority for the refund's actor (`api_key:…` from the API, `member:…` from the dashboard). */
function refundAuthority(ctx: RefundContext): Extract<TransferAuthority, { kind: 'api_key' | 'member' }> {
  const [kind, id] = ctx.actor.split(':', 2);
  if (kind === 'api_key' && id) return { kind: 'api_key', apiKeyId: id, merchantId: ctx.merchantId };
  if (kind === 'member' && id) return { kind: 'member', userId: id, merchantId: ctx.merchantId };
  throw new Error(`createRefund: no transfer authority for the actor ${ctx.actor}`);
}

async function chargeOf(db: DbOrTx, ctx: RefundContext, chargeId: string, options: { lock?: boolean } = {}): Promise<ChargeRow> {
  const query = db
    .select()
    .from(charges)
    .where(and(eq(charges.id, chargeId), eq(charges.merchantId, ctx.merchantId), eq(charges.mode, ctx.mode)));
  const [charge] = options.lock ? await query.for('update') : await query;
  if (!charge) throw new AppError('not_found', `No charge ${chargeId}.`);
  return charge;
}

function parseRequestedAmount(amount: string | undefined, decimals: number, symbol: string): bigint | undefined {
  if (amount === undefined) return undefined;
  const parsed = parseAmount(amount, decimals);
  if (!parsed.ok)
    throw new AppError('invalid_amount', `Enter a positive amount of ${symbol} with at most ${decimals} decimals.`, { param: 'amount' });
  return parsed.baseUnits;
}

/** How much, and from where: the deposit address if it holds it, else the merchant wallet. */
function planRefund(
  funds: ChargeFunds,
  amount: bigint,
  token: { symbol: string; decimals: number },
): { amount: bigint; source: RefundSource } {
  const fmt = (units: bigint) => `${formatAmount(units < 0n ? 0n : units, token.decimals)} ${token.symbol}`;
  if (funds.refundable <= 0n) {
    throw new AppError(
      'refund_exceeds_refundable',
      `Nothing of this charge is left to refund (received ${fmt(funds.received)}, refunded ${fmt(funds.refunded)}).`,
      {
        param: 'amount',
      },
    );
  }
  if (amount > funds.refundable) {
    throw new AppError(
      'refund_exceeds_refundable',
      `At most ${fmt(funds.refundable)} of this charge can be refunded (received ${fmt(funds.received)}, refunded ${fmt(funds.refunded)}).`,
      {
        param: 'amount',
      },
    );
  }
  if (amount <= funds.atDeposit) return { amount, source: 'deposit_address' };
  // Funds still on their way to the merchant wallet (its sweep in flight) count: the engine sends the refund once they land.
  if (amount <= funds.inMerchantWallet + funds.onTheWayToMerchantWallet) return { amount, source: 'merchant_wallet' };
  throw new AppError(
    'refund_not_possible',
    funds.leftTheService > 0n
      ? `${fmt(funds.leftTheService)} of this charge went to its toAddress (a direct transfer or deliver-to-wallet charge) and is no longer held by Chargeport; at most ${fmt(funds.atDeposit + funds.inMerchantWallet)} can be refunded here. Refund the rest from the wallet that received it.`
      : `At most ${fmt(funds.atDeposit > funds.inMerchantWallet ? funds.atDeposit : funds.inMerchantWallet)} can be refunded in one refund now.`,
    { param: 'amount' },
  );
}

async function refundDestination(charge: ChargeRow, funds: ChargeFunds, toAddress: string | undefined): Promise<Address> {
  if (toAddress !== undefined) {
    if (!isAddress(toAddress, { strict: false })) {
      throw new AppError('invalid_address', 'toAddress is not an EVM address (0x followed by 40 hexadecimal characters).', {
        param: 'toAddress',
      });
    }
    const address = getAddress(toAddress);
    if (address === EVM_NATIVE_TOKEN_ADDRESS)
      throw new AppError('invalid_address', 'That is the zero address: anything sent there is lost.', { param: 'toAddress' });
    if (funds.depositAddress && address === getAddress(funds.depositAddress)) {
      throw new AppError('invalid_address', 'That is the charge’s own deposit address. Give the payer’s address.', { param: 'toAddress' });
    }
    if (address === getAddress(charge.tokenAddress) && charge.tokenAddress !== EVM_NATIVE_TOKEN_ADDRESS) {
      throw new AppError('invalid_address', 'That is the token contract itself: tokens sent there are lost.', { param: 'toAddress' });
    }
    return address;
  }
  if (funds.payers.includes('')) {
    // A credit seen only as a balance change (native coin sent by a contract): its sender is unknown.
    throw new AppError(
      'refund_destination_required',
      'Part of this charge arrived through a contract (its sender is not known): give toAddress.',
      { param: 'toAddress' },
    );
  }
  if (funds.payers.length !== 1) {
    throw new AppError(
      'refund_destination_required',
      funds.payers.length === 0
        ? 'This charge has no confirmed payment to take a sender from: give toAddress.'
        : `This charge was paid from ${funds.payers.length} addresses: give toAddress (one of ${funds.payers.join(', ')}).`,
      { param: 'toAddress' },
    );
  }
  const payer = getAddress(funds.payers[0]!);
  const unreachable = new AppError(
    'chain_unavailable',
    `${CHAINS[charge.chain as ChainName].displayName} is not reachable right now. Try again shortly.`,
  );
  const client = publicClientFor(charge.chain as ChainName);
  if (!client) throw unreachable;
  // viem answers undefined for an address without code.
  const code = await client.getCode({ address: payer }).catch(() => {
    throw unreachable;
  });
  if (code && code !== '0x') {
    throw new AppError(
      'refund_destination_required',
      `The payment came from a contract (${payer}: a smart-contract wallet or an exchange), which may not return funds to the payer: give toAddress.`,
      { param: 'toAddress' },
    );
  }
  return payer;
}

/** The wallet a refund is paid from, and how to sign for it (opened only inside the recording transaction). */
async function sourceWallet(
  charge: ChargeRow,
  source: RefundSource,
  funds: ChargeFunds,
): Promise<{ address: Address; signer: () => Promise<ReturnType<typeof depositAccount>> }> {
  if (source === 'deposit_address') {
    const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, charge.id));
    const account = depositAccount(deposit!.derivationIndex);
    if (getAddress(funds.depositAddress!) !== account.address)
      throw new AppError('internal_error', 'The deposit key does not match its address.');
    return { address: account.address, signer: async () => account };
  }
  const wallet = (await ensureMerchantWallets(getDb(), charge.merchantId)).find((w) => w.family === 'evm')!;
  return {
    address: getAddress(wallet.address),
    signer: async () => {
      const [sealed] = await getDb().select().from(wallets).where(eq(wallets.id, wallet.id));
      return accountFromKey(openWalletKey(sealed!));
    },
  };
}

/** A retried request: the refund its idempotency id already made (409 if the retry asks for something else). */
async function findReplay(
  db: DbOrTx,
  scope: string,
  key: string,
  input: { ctx: RefundContext; body: CreateRefundBody },
): Promise<RefundResource | undefined> {
  const [existing] = await db
    .select({ refundId: refunds.id, amount: refunds.amountBaseUnits, destination: refunds.destination })
    .from(refunds)
    .innerJoin(outboundTransfers, eq(outboundTransfers.id, refunds.transferId))
    .where(and(eq(outboundTransfers.idempotencyScope, scope), eq(outboundTransfers.idempotencyKey, key)));
  if (!existing) return undefined;
  const refund = (await getRefund(db, { merchantId: input.ctx.merchantId, mode: input.ctx.mode, refundId: existing.refundId }))!;
  const { toAddress, amount } = input.body;
  const requested = amount === undefined ? undefined : parseAmount(amount, refund.token.decimals);
  const sameAmount = requested === undefined || (requested.ok && requested.baseUnits === existing.amount);
  const sameDestination =
    toAddress === undefined || (isAddress(toAddress, { strict: false }) && getAddress(toAddress) === existing.destination);
  if (!sameAmount || !sameDestination) {
    throw new AppError('idempotency_conflict', 'This Idempotency-Key was used for a different refund. Use a new key for a new refund.');
  }
  return refund;
}

async function refundIdOf(tx: DbOrTx, transferId: string): Promise<string> {
  const [row] = await tx.select({ id: refunds.id }).from(refunds).where(eq(refunds.transferId, transferId));
  return row!.id;
}
