/**
 * Refund (part of) what a charge received (POST /api/charges/{chargeId}/refunds, the dashboard's Refund
 * button). The spec is silent on refunds; this follows Stripe, Coinbase Commerce and BTCPay (pull payments):
 *
 *  - Only once the charge is settled: a charge still `pending` or `processing` is refused (409
 *    charge_not_settled, N8) — a refund of a partial payment would otherwise count toward its success.
 *  - Amount: default everything still refundable (received − refunded; over- and late payments count).
 *    More than that → 422 refund_exceeds_refundable. Funds that already left Chargeport (a direct
 *    transfer or deliver-to-wallet charge whose sweep went to its toAddress) → 409 refund_not_possible.
 *  - Paid from where the funds are now: the charge's deposit address before its sweep, the merchant wallet
 *    after it (while the sweep is still on its way, the refund waits for it to land). A deposit refund draws
 *    on late funds first and records how much, so the sweep still pays the merchant the full price (N11).
 *    The gas tank pays the fee (the merchant's daily sponsored gas): a top-up, or the relayed call where smart
 *    accounts are on (ADR 0035); on Solana as the transaction's fee payer.
 *  - Every chain: on Solana the same rules, the transfer signed by the Solana deposit key or the merchant's
 *    Solana wallet (lib/transactions/solana/); the payer is the signer whose value went out.
 *  - Destination: the payer, never an address an API key alone chose (N2).
 *      · No toAddress: the one address that paid (for a balance payment, the payer's Chargeport wallet).
 *        Where the sender is not the payer or not known — a card payment delivered by an on-ramp provider,
 *        a contract, several senders, a balance-change credit — the refund is a claim link instead
 *        (status awaiting_claim, amount reserved; claim-refund.ts): the answer carries `claimUrl` once.
 *      · toAddress that paid the charge: accepted (it is the payer).
 *      · toAddress that never paid: 403 refund_destination_not_payer for API keys and admins; an owner may
 *        from the dashboard with step-up (refund-from-dashboard.ts sets `ownerApproval`).
 *  - Exactly once: the refund and its transfer are recorded in one transaction under the charge's lock (two
 *    refunds at once cannot over-refund), with the request's Idempotency-Key (or the form's id) as
 *    `refunds.request_key` and the transfer's idempotency id, so a retried request is the same refund.
 *    `refund.created` is emitted in that transaction; `refund.succeeded` / `refund.failed` when the
 *    transfer ends (settle-refund.ts).
 */
import { and, eq } from 'drizzle-orm';
import { publicClientFor } from '@/lib/chains/clients';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, outboundTransfers, refunds, users, type ApiKeyMode, type ChargeRow } from '@/lib/db/schema';
import { AppError, inputExcerpt } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { formatAmount, parseAmount } from '@/lib/money';
import { sendEmail } from '@/lib/notifications/send-email';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { delegationOf } from '@/lib/smart-accounts/read-delegation';
import { prepareChainTransfer } from '@/lib/transactions/prepare-chain-transfer';
import { recordChainTransfer } from '@/lib/transactions/record-chain-transfer';
import type { TransferAuthority } from '@/lib/transactions/transfer-policy';
import { chargeFunds, type ChargeFunds } from './charge-funds';
import { claimExpiryFrom, claimUrlOf, newClaimToken } from './claim-token';
import { emitRefundEvent } from './emit-refund-event';
import { getRefund } from './list-refunds';
import { canonicalAddress, checkRefundable, payerAddresses, refundAddressOf, refundSourceOf, refundSourceWallet } from './refund-source';
import type { CreateRefundBody, CreatedRefund } from './schemas';

export interface RefundContext {
  merchantId: string;
  mode: ApiKeyMode;
  /** api_key:…, member:… */
  actor: string;
  /** Set only after an owner's step-up (refund-from-dashboard.ts): a toAddress that never paid is then allowed. */
  ownerApproval?: { userId: string };
}

/**
 * Who authorized a refund and where it may go, in the transfer gate's words (lib/transactions/
 * transfer-policy.ts, which verifies the class): an API key, a member or an owner → the original payer;
 * only an owner's step-up → another address (owner_approved). Claim links: claim-refund.ts.
 */
type RefundAuthorization =
  | {
      authority: Extract<TransferAuthority, { kind: 'api_key' | 'member' | 'owner_step_up' }>;
      destination: { class: 'original_payer' };
    }
  | { authority: Extract<TransferAuthority, { kind: 'owner_step_up' }>; destination: { class: 'owner_approved'; address: string } };
type RefundAuthority = RefundAuthorization['authority'];
type RefundDestinationClass = RefundAuthorization['destination']['class'] | 'claim_address';

function authorityOf(ctx: RefundContext): RefundAuthority {
  if (ctx.ownerApproval) return { kind: 'owner_step_up', userId: ctx.ownerApproval.userId, merchantId: ctx.merchantId };
  const [kind, id] = ctx.actor.split(':', 2);
  if (kind === 'member' && id) return { kind: 'member', userId: id, merchantId: ctx.merchantId };
  if (kind === 'api_key' && id) return { kind: 'api_key', apiKeyId: id, merchantId: ctx.merchantId };
  throw new Error(`createRefund: no transfer authority for the actor ${ctx.actor}`);
}

function refundAuthorization(ctx: RefundContext, route: Extract<Route, { kind: 'transfer' }>): RefundAuthorization {
  if (route.destinationClass === 'owner_approved') {
    // refundRoute gives this class only after an owner's step-up (ctx.ownerApproval).
    if (!ctx.ownerApproval) throw new Error('createRefund: an owner-approved destination without the owner’s approval');
    return {
      authority: { kind: 'owner_step_up', userId: ctx.ownerApproval.userId, merchantId: ctx.merchantId },
      destination: { class: 'owner_approved', address: route.destination },
    };
  }
  return { authority: authorityOf(ctx), destination: { class: 'original_payer' } };
}

/** An id for a refund form: submitting it twice is one refund. */
export function newRefundRequestId(): string {
  return newId('refundRequest');
}

const UNSETTLED = new Set(['pending', 'processing']);

function refuseUnsettled(charge: ChargeRow): void {
  if (UNSETTLED.has(charge.status)) {
    throw new AppError(
      'charge_not_settled',
      `This charge is still ${charge.status}: refund after the charge succeeds, fails or expires (or cancel it first if nothing was paid).`,
    );
  }
}

type Route =
  | { kind: 'transfer'; destination: string; destinationClass: Exclude<RefundDestinationClass, 'claim_address'> }
  | { kind: 'claim'; why: string };

export async function createRefund(
  input: {
    ctx: RefundContext;
    chargeId: string;
    body: CreateRefundBody;
    /** The request's Idempotency-Key (or the form's id). */
    idempotencyKey?: string;
    /** Runs in the recording transaction once a new refund is recorded (the dashboard's audit entry). */
    onRecorded?: (
      tx: DbOrTx,
      refund: { id: string; amountBaseUnits: bigint; destination: string | null; txHash: string | null; destinationClass: string },
    ) => Promise<void>;
  },
  options: SolanaRpcOptions = {},
): Promise<{ refund: CreatedRefund; replayed: boolean }> {
  const { ctx } = input;
  const charge = await chargeOf(getDb(), ctx, input.chargeId);
  const token = tokenOfCharge(charge);
  const chain = CHAINS[charge.chain as ChainName];
  const idempotency = { scope: `refund:${ctx.merchantId}:${ctx.mode}`, key: input.idempotencyKey ?? newRefundRequestId() };
  const requestKey = `${idempotency.scope}:${idempotency.key}`;
  const replay = await findReplay(getDb(), idempotency, input);
  if (replay) return { refund: replay, replayed: true };
  refuseUnsettled(charge);

  const label = { symbol: token.symbol, decimals: token.decimals };
  const amountAsked = parseRequestedAmount(input.body.amount, token.decimals, token.symbol);
  const funds = await chargeFunds(getDb(), charge);
  const amount = amountAsked ?? funds.refundable;
  checkRefundable(funds, amount, label);
  const route = await refundRoute(charge, funds, input.body.toAddress, ctx);
  const authority = authorityOf(ctx);

  if (route.kind === 'claim') return createClaim({ ...input, charge, amount, label, idempotency, authority, why: route.why });

  const plan = refundSourceOf(funds, amount, label);
  const source = await refundSourceWallet(charge, plan.source, funds);
  const prepared = await prepareChainTransfer(
    { chain: chain.name, from: source.address, spend: { token, amount, recipient: route.destination }, gasSponsored: true },
    options,
  );
  const authorization = refundAuthorization(ctx, route);

  const created = await getDb().transaction(async (tx) => {
    const locked = await chargeOf(tx, ctx, charge.id, { lock: true });
    // The same request on another instance held the lock first: its refund is the answer (not "nothing left").
    const raced = await findReplay(tx, idempotency, input);
    if (raced) return { raced };
    refuseUnsettled(locked);
    // Re-checked under the lock: a refund or sweep that committed meanwhile is counted.
    const fundsNow = await chargeFunds(tx, locked);
    checkRefundable(fundsNow, amount, label);
    const now = refundSourceOf(fundsNow, amount, label);
    if (now.source !== plan.source) throw new AppError('refund_not_possible', 'The charge’s funds just moved. Try again.');
    const recorded = await recordChainTransfer(tx, {
      prepared,
      signer: source.signer,
      purpose: 'refund',
      // The transfer gate sends a key's or a member's refund to an address that paid this charge only (N2).
      authorization,
      chargeId: charge.id,
      gasSponsor: { merchantId: ctx.merchantId },
      idempotency,
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
      amountBaseUnits: amount,
      destination: route.destination,
      source: plan.source,
      lateBaseUnits: now.late,
      reason: input.body.reason ?? null,
      requestKey,
      actor: ctx.actor,
    });
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: locked.status,
      toStatus: locked.status,
      actor: ctx.actor,
      type: 'charge.refund_created',
      data: {
        refundId,
        amountBaseUnits: amount.toString(),
        destination: route.destination,
        source: plan.source,
        txHash: recorded.transfer.txHash,
        authority: authorization.authority.kind,
        destinationClass: authorization.destination.class,
      },
    });
    await emitRefundEvent(tx, { refundId, type: 'refund.created' });
    await input.onRecorded?.(tx, {
      id: refundId,
      amountBaseUnits: amount,
      destination: route.destination,
      txHash: recorded.transfer.txHash,
      destinationClass: route.destinationClass,
    });
    return { recorded, refundId };
  });
  if (created.raced) return { refund: created.raced, replayed: true };
  if (!created.recorded.replayed) await submitTransfer(created.recorded, { waitForGasMs: 0, ...options });
  const refund = await getRefund(getDb(), { merchantId: ctx.merchantId, mode: ctx.mode, refundId: created.refundId });
  return { refund: refund!, replayed: created.recorded.replayed };
}

/**
 * A claim link: the amount is reserved under the charge's lock, the link returned once (and e-mailed to
 * the buyers we know); the payer picks the destination later (claim-refund.ts).
 */
async function createClaim(input: {
  ctx: RefundContext;
  charge: ChargeRow;
  body: CreateRefundBody;
  amount: bigint;
  label: { symbol: string; decimals: number };
  idempotency: { scope: string; key: string };
  authority: RefundAuthority;
  why: string;
  onRecorded?: Parameters<typeof createRefund>[0]['onRecorded'];
}): Promise<{ refund: CreatedRefund; replayed: boolean }> {
  const { ctx, charge, amount } = input;
  const claim = newClaimToken();
  const created = await getDb().transaction(async (tx) => {
    const locked = await chargeOf(tx, ctx, charge.id, { lock: true });
    const raced = await findReplay(tx, input.idempotency, input);
    if (raced) return { raced };
    refuseUnsettled(locked);
    const funds = await chargeFunds(tx, locked);
    checkRefundable(funds, amount, input.label);
    // Funds that left Chargeport (a direct transfer swept to its toAddress) cannot be claimed later either.
    refundSourceOf(funds, amount, input.label);
    const refundId = newId('refund');
    await tx.insert(refunds).values({
      id: refundId,
      chargeId: charge.id,
      merchantId: ctx.merchantId,
      mode: ctx.mode,
      chain: charge.chain,
      tokenAddress: charge.tokenAddress,
      amountBaseUnits: amount,
      reason: input.body.reason ?? null,
      requestKey: `${input.idempotency.scope}:${input.idempotency.key}`,
      actor: ctx.actor,
      claimStatus: 'awaiting_claim',
      claimTokenHash: claim.hash,
      claimExpiresAt: claimExpiryFrom(new Date()),
    });
    await recordChargeEvent(tx, {
      chargeId: charge.id,
      fromStatus: locked.status,
      toStatus: locked.status,
      actor: ctx.actor,
      type: 'charge.refund_created',
      data: { refundId, amountBaseUnits: amount.toString(), claim: true, why: input.why, authority: input.authority.kind },
    });
    await emitRefundEvent(tx, { refundId, type: 'refund.created' });
    await input.onRecorded?.(tx, {
      id: refundId,
      amountBaseUnits: amount,
      destination: null,
      txHash: null,
      destinationClass: 'claim_link',
    });
    return { refundId, buyers: funds.orderBuyerIds };
  });
  if (created.raced) return { refund: created.raced, replayed: true };
  const refund = (await getRefund(getDb(), { merchantId: ctx.merchantId, mode: ctx.mode, refundId: created.refundId }))!;
  const claimUrl = claimUrlOf(claim.token);
  await emailClaimLink(created.buyers, { claimUrl, amount: `${formatAmount(amount, input.label.decimals)} ${input.label.symbol}` });
  return { refund: { ...refund, claimUrl }, replayed: false };
}

/** The buyers we know (signed in when they paid by card) get the link; the merchant forwards it otherwise. */
async function emailClaimLink(userIds: string[], link: { claimUrl: string; amount: string }): Promise<void> {
  for (const userId of userIds) {
    try {
      const [user] = await getDb().select({ email: users.email }).from(users).where(eq(users.id, userId));
      if (!user?.email) continue;
      await sendEmail({
        to: user.email,
        subject: `A refund of ${link.amount} is waiting for you`,
        text: `A merchant refunded ${link.amount} of a payment you made by card or bank transfer. Choose where it goes (an address of yours or your Chargeport balance):\n\n${link.claimUrl}\n\nThe link is yours alone: do not share it.`,
      });
    } catch (error) {
      // The merchant has the link too (the API's answer); a mail outage does not undo the refund.
      log.warn('refund claim e-mail not sent', { userId, error });
    }
  }
}

/** To whom: a transfer to the payer (or an owner-approved address), or a claim link the payer completes. */
async function refundRoute(charge: ChargeRow, funds: ChargeFunds, toAddress: string | undefined, ctx: RefundContext): Promise<Route> {
  const family = CHAINS[charge.chain as ChainName].family;
  const payers = payerAddresses(funds, family);
  if (toAddress !== undefined) {
    const address = refundAddressOf(toAddress, charge, funds, 'toAddress');
    if (payers.includes(address)) return { kind: 'transfer', destination: address, destinationClass: 'original_payer' };
    if (ctx.ownerApproval) return { kind: 'transfer', destination: address, destinationClass: 'owner_approved' };
    throw new AppError(
      'refund_destination_not_payer',
      `${address} did not pay this charge. Refunds go back to whoever paid: leave toAddress out (a claim link is made when the sender is not the payer), or have an owner approve a refund to another address from the dashboard's charge page.`,
      { param: 'toAddress' },
    );
  }
  if (funds.hasSenderNotPayer) return { kind: 'claim', why: 'a payment’s sender is not the payer (an on-ramp provider or unknown)' };
  if (payers.length !== 1) return { kind: 'claim', why: `the charge was paid from ${payers.length} addresses` };
  const payer = payers[0]!;
  // A Solana payer signed its payment: a key holder, not a program (nothing like EVM contract wallets to check).
  if (family === 'solana') return { kind: 'transfer', destination: payer, destinationClass: 'original_payer' };
  const unreachable = new AppError(
    'chain_unavailable',
    `${CHAINS[charge.chain as ChainName].displayName} is not reachable right now. Try again shortly.`,
  );
  const client = publicClientFor(charge.chain as ChainName);
  if (!client) throw unreachable;
  // viem answers undefined for an address without code.
  const code = await client.getCode({ address: payer as `0x${string}` }).catch(() => {
    throw unreachable;
  });
  // A smart-contract wallet or an exchange's hot wallet may not give the money back to the right person. An EOA
  // delegating by EIP-7702 (our own smart accounts, ADR 0035, or a MetaMask smart account) is still its key's: not a contract.
  if (code && code !== '0x' && !delegationOf(code)) return { kind: 'claim', why: 'the payment came from a contract' };
  return { kind: 'transfer', destination: payer, destinationClass: 'original_payer' };
}

async function chargeOf(db: DbOrTx, ctx: RefundContext, chargeId: string, options: { lock?: boolean } = {}): Promise<ChargeRow> {
  const query = db
    .select()
    .from(charges)
    .where(and(eq(charges.id, chargeId), eq(charges.merchantId, ctx.merchantId), eq(charges.mode, ctx.mode)));
  const [charge] = options.lock ? await query.for('update') : await query;
  if (!charge) throw new AppError('not_found', `No charge ${inputExcerpt(chargeId)}.`, { param: 'chargeId' });
  return charge;
}

function parseRequestedAmount(amount: string | undefined, decimals: number, symbol: string): bigint | undefined {
  if (amount === undefined) return undefined;
  const parsed = parseAmount(amount, decimals);
  if (!parsed.ok)
    throw new AppError('invalid_amount', `Enter a positive amount of ${symbol} with at most ${decimals} decimals.`, { param: 'amount' });
  return parsed.baseUnits;
}

/** A retried request: the refund its idempotency id already made (409 if the retry asks for something else). */
async function findReplay(
  db: DbOrTx,
  idempotency: { scope: string; key: string },
  input: { ctx: RefundContext; body: CreateRefundBody },
): Promise<CreatedRefund | undefined> {
  const [byKey] = await db
    .select({ refundId: refunds.id, amount: refunds.amountBaseUnits, destination: refunds.destination })
    .from(refunds)
    .where(eq(refunds.requestKey, `${idempotency.scope}:${idempotency.key}`));
  // Refunds recorded before request_key: their transfer's idempotency id.
  const [byTransfer] = byKey
    ? [byKey]
    : await db
        .select({ refundId: refunds.id, amount: refunds.amountBaseUnits, destination: refunds.destination })
        .from(refunds)
        .innerJoin(outboundTransfers, eq(outboundTransfers.id, refunds.transferId))
        .where(and(eq(outboundTransfers.idempotencyScope, idempotency.scope), eq(outboundTransfers.idempotencyKey, idempotency.key)));
  const existing = byTransfer;
  if (!existing) return undefined;
  const refund = (await getRefund(db, { merchantId: input.ctx.merchantId, mode: input.ctx.mode, refundId: existing.refundId }))!;
  const { toAddress, amount } = input.body;
  const requested = amount === undefined ? undefined : parseAmount(amount, refund.token.decimals);
  const sameAmount = requested === undefined || (requested.ok && requested.baseUnits === existing.amount);
  const family = CHAINS[refund.chain as ChainName].family;
  const sameDestination = toAddress === undefined || canonicalAddress(family, toAddress) === existing.destination;
  if (!sameAmount || !sameDestination) {
    throw new AppError('idempotency_conflict', 'This Idempotency-Key was used for a different refund. Use a new key for a new refund.');
  }
  return refund;
}

async function refundIdOf(tx: DbOrTx, transferId: string): Promise<string> {
  const [row] = await tx.select({ id: refunds.id }).from(refunds).where(eq(refunds.transferId, transferId));
  return row!.id;
}
