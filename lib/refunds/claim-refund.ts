/**
 * A refund claim link, from the payer's side (app/refunds/claim/[token]): what it refunds, and the claim
 * itself — the payer names an address of the charge's chain, or (signed in) their Chargeport balance
 * (their own wallet's address). Claiming records the refund's transfer exactly once: the refund row is
 * locked (after the charge's, the order every refund verb takes), a claimed or expired link is answered
 * as it is (a double submit is one transfer), and the claim status moves awaiting_claim → claimed in the
 * transaction that records the transfer and `refund.claimed`. Authority payer_claim → claim_address.
 */
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import { and, eq, inArray } from 'drizzle-orm';
import { getAddress } from 'viem';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { recordChargeEvent } from '@/lib/charges/transition-charge';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { charges, merchants, refunds, type ChargeRow, type RefundRow } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { formatAmount } from '@/lib/money';
import { submitTransfer } from '@/lib/transactions/broadcast-transfer';
import { prepareChainTransfer } from '@/lib/transactions/prepare-chain-transfer';
import { recordChainTransfer } from '@/lib/transactions/record-chain-transfer';
import { listWallets } from '@/lib/wallets/list-wallets';
import { chargeFunds } from './charge-funds';
import { hashClaimToken, isClaimTokenShaped } from './claim-token';
import { emitRefundEvent } from './emit-refund-event';
import { refundAddressOf, refundSourceOf, refundSourceWallet } from './refund-source';
import { refundStatusOf } from './refund-status-of';
import { refundClaimMachine, type RefundStatus } from './state';
import { outboundTransfers } from '@/lib/db/schema';

export interface RefundClaimView {
  merchantName: string;
  amount: string;
  symbol: string;
  chainName: string;
  status: RefundStatus;
  expiresAt: string | null;
  destination: string | null;
}

const NO_SUCH_CLAIM = () => new AppError('not_found', 'This refund link is not valid. Check that you copied all of it.');

async function claimByToken(db: DbOrTx, token: string, options: { lock?: boolean } = {}): Promise<RefundRow> {
  if (!isClaimTokenShaped(token)) throw NO_SUCH_CLAIM();
  const query = db
    .select()
    .from(refunds)
    .where(eq(refunds.claimTokenHash, hashClaimToken(token)));
  const [row] = options.lock ? await query.for('update') : await query;
  if (!row) throw NO_SUCH_CLAIM();
  return row;
}

/** What the claim page shows (the token is the capability: nothing about the merchant's other data). */
export async function findRefundClaim(token: string): Promise<RefundClaimView> {
  const row = await claimByToken(getDb(), token);
  const [charge] = await getDb()
    .select({ charge: charges, merchantName: merchants.name })
    .from(charges)
    .innerJoin(merchants, eq(merchants.id, charges.merchantId))
    .where(eq(charges.id, row.chargeId));
  const [transfer] = row.transferId
    ? await getDb().select({ status: outboundTransfers.status }).from(outboundTransfers).where(eq(outboundTransfers.id, row.transferId))
    : [];
  return {
    merchantName: charge!.merchantName,
    amount: formatAmount(row.amountBaseUnits, charge!.charge.tokenDecimals),
    symbol: charge!.charge.tokenSymbol,
    chainName: CHAINS[row.chain as ChainName].displayName,
    status: refundStatusOf({ claimStatus: row.claimStatus, transferStatus: transfer?.status ?? null }),
    expiresAt: row.claimStatus === 'awaiting_claim' ? (row.claimExpiresAt?.toISOString() ?? null) : null,
    destination: row.destination,
  };
}

interface ClaimInput {
  token: string;
  /** An address of the charge's chain, or the signed-in user's own Chargeport wallet. */
  to: { address: string } | { balanceOfUserId: string };
}

export async function claimRefund(input: ClaimInput, options: SolanaRpcOptions = {}): Promise<RefundClaimView> {
  try {
    return await claimOnce(input, options);
  } catch (error) {
    // A double submit (two tabs, a retry) can lose the race outside the lock: its twin's transfer already
    // spent the funds it was estimating. The link is claimed either way, so the answer is the claim as it is.
    const now = await claimByToken(getDb(), input.token).catch(() => undefined);
    if (now?.claimStatus === 'claimed') return findRefundClaim(input.token);
    throw error;
  }
}

async function claimOnce(input: ClaimInput, options: SolanaRpcOptions): Promise<RefundClaimView> {
  const claim = await claimByToken(getDb(), input.token);
  if (claim.claimStatus !== 'awaiting_claim' || (claim.claimExpiresAt && claim.claimExpiresAt <= new Date())) {
    if (claim.claimStatus === 'claimed') return findRefundClaim(input.token);
    throw new AppError('refund_claim_closed', 'This refund link has expired: ask the merchant for a new refund.');
  }
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, claim.chargeId));
  const funds = await chargeFunds(getDb(), charge!);
  const destination = await claimDestination(charge!, funds, input.to);
  const token = tokenOfCharge(charge!);
  const label = { symbol: token.symbol, decimals: token.decimals };
  // The claim's own amount is reserved in `funds`; where it is paid from is decided now.
  const plan = refundSourceOf(funds, claim.amountBaseUnits, label);
  const source = await refundSourceWallet(charge!, plan.source, funds);
  const prepared = await prepareChainTransfer(
    {
      chain: charge!.chain as ChainName,
      from: source.address,
      spend: { token, amount: claim.amountBaseUnits, recipient: destination },
      gasSponsored: true,
    },
    options,
  );
  // The transfer gate checks the recipient is the address recorded on this claim: payer_claim → claim_address.
  const authorization = {
    authority: { kind: 'payer_claim' as const, claimId: claim.id },
    destination: { class: 'claim_address' as const, claimId: claim.id },
  };

  const recorded = await getDb().transaction(async (tx) => {
    const [locked] = await tx.select().from(charges).where(eq(charges.id, claim.chargeId)).for('update');
    const row = await claimByToken(tx, input.token, { lock: true });
    if (row.claimStatus === 'claimed') return undefined;
    if (row.claimStatus !== 'awaiting_claim' || (row.claimExpiresAt && row.claimExpiresAt <= new Date()))
      throw new AppError('refund_claim_closed', 'This refund link has expired: ask the merchant for a new refund.');
    const now = refundSourceOf(await chargeFunds(tx, locked!), row.amountBaseUnits, label);
    if (now.source !== plan.source) throw new AppError('refund_not_possible', 'The charge’s funds just moved. Try again.');
    // The claimed destination is recorded first: the transfer gate checks the recipient against it (claim_address).
    const updated = await tx
      .update(refunds)
      .set({ destination, source: plan.source, lateBaseUnits: now.late, claimStatus: 'claimed' })
      .where(and(eq(refunds.id, row.id), inArray(refunds.claimStatus, refundClaimMachine.leadingTo('claimed'))))
      .returning({ id: refunds.id });
    if (updated.length !== 1) throw new AppError('refund_claim_closed', 'This refund link was just claimed.');
    const result = await recordChainTransfer(tx, {
      prepared,
      signer: source.signer,
      purpose: 'refund',
      authorization,
      chargeId: row.chargeId,
      gasSponsor: { merchantId: row.merchantId },
      idempotency: { scope: 'refund_claim', key: row.id },
      senderLabel: plan.source === 'merchant_wallet' ? 'The merchant wallet' : 'The charge’s deposit address',
    });
    await tx.update(refunds).set({ transferId: result.transfer.id }).where(eq(refunds.id, row.id));
    await recordChargeEvent(tx, {
      chargeId: row.chargeId,
      fromStatus: locked!.status,
      toStatus: locked!.status,
      actor: `refund_claim:${row.id}`,
      type: 'charge.refund_claimed',
      data: {
        refundId: row.id,
        amountBaseUnits: row.amountBaseUnits.toString(),
        destination,
        source: plan.source,
        txHash: result.transfer.txHash,
        authority: authorization.authority.kind,
        destinationClass: authorization.destination.class,
      },
    });
    await emitRefundEvent(tx, { refundId: row.id, type: 'refund.claimed' });
    return result;
  });
  if (recorded && !recorded.replayed) await submitTransfer(recorded, { waitForGasMs: 0, ...options });
  return findRefundClaim(input.token);
}

async function claimDestination(
  charge: ChargeRow,
  funds: Awaited<ReturnType<typeof chargeFunds>>,
  to: { address: string } | { balanceOfUserId: string },
): Promise<string> {
  if ('address' in to) {
    if (!to.address.trim())
      throw new AppError('refund_destination_required', `Enter your ${CHAINS[charge.chain as ChainName].displayName} address.`, {
        param: 'address',
      });
    return refundAddressOf(to.address, charge, funds, 'address');
  }
  const family = CHAINS[charge.chain as ChainName].family;
  const wallet = (await listWallets(to.balanceOfUserId)).find((w) => w.family === family);
  if (!wallet) throw new AppError('refund_not_possible', 'Your account has no wallet on this network yet: enter an address instead.');
  return family === 'evm' ? getAddress(wallet.address) : wallet.address;
}
