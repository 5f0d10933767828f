/**
 * What the hosted checkout shows while a charge is being paid: status, amounts received and due,
 * each payment with its confirmations so far / needed and an explorer link, where to pay, and whether
 * it may be paid at all right now (`payable`). The page hears it pushed (./checkout-event-stream.ts), or
 * polls it, and removes every way to pay the moment `payable` turns false. Public by charge id (the id
 * is the capability the paymentUrl carries).
 */
import { asc, eq } from 'drizzle-orm';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { explorerLink } from '@/lib/chains/explorer-link';
import { publicClientFor } from '@/lib/chains/clients';
import { requiredConfirmations } from '@/lib/chains/required-confirmations';
import type { ChargeStatus } from '@/lib/charges/state';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, payments } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import type { z } from 'zod';
import type { checkoutStatusSchema } from './schemas';
import { amountToRequest, paymentRequestUri } from './payment-uri';
import { confirmationsOf } from './poll-chain';
import { fundingOf } from '@/lib/charges/funding';
import { tokenOfCharge } from '@/lib/charges/charge-token';
import { describePaymentInFlight, findPaymentsInFlight, nextStepOf } from '@/lib/charges/payment-in-flight';

/** The status's wire format, its fields described in ./schemas.ts. */
export type CheckoutStatus = z.infer<typeof checkoutStatusSchema>;

export async function loadCheckoutStatus(chargeId: string, now = new Date()): Promise<CheckoutStatus | undefined> {
  const [charge] = await getDb().select().from(charges).where(eq(charges.id, chargeId));
  if (!charge) return undefined;
  const chain = CHAINS[charge.chain as ChainName];
  const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
  const rows = await getDb().select().from(payments).where(eq(payments.chargeId, chargeId)).orderBy(asc(payments.createdAt));
  const latest = rows.some((p) => p.status === 'pending')
    ? await publicClientFor(chain.name)
        ?.getBlockNumber()
        .catch(() => undefined)
    : undefined;
  const funding = fundingOf(rows);
  const received = funding.seen;
  const due = amountToRequest({ totalBaseUnits: charge.totalBaseUnits, receivedBaseUnits: received });
  const required = requiredConfirmations(chain.name);
  const token = tokenOfCharge(charge);
  const isOpen = charge.status === 'pending' || charge.status === 'processing';
  const [inFlight] = isOpen ? await findPaymentsInFlight(getDb(), chargeId, now) : [];
  const isOverdue = charge.expiresAt <= now;
  // Past expiresAt the expiry job has not run yet, or waits for a payment in flight: only the latter stays open.
  const status: ChargeStatus = charge.status === 'pending' && isOverdue && !inFlight ? 'expired' : charge.status;
  const payable = isOpen && !isOverdue && !inFlight && due > 0n;
  return {
    chargeId,
    status,
    total: formatAmount(charge.totalBaseUnits, charge.tokenDecimals),
    received: formatAmount(received, charge.tokenDecimals),
    due: formatAmount(due, charge.tokenDecimals),
    symbol: charge.tokenSymbol,
    expiresAt: charge.expiresAt.toISOString(),
    successUrl: charge.successUrl,
    payments: rows.map((p) => ({
      txHash: p.txHash,
      amount: formatAmount(p.amountBaseUnits, charge.tokenDecimals),
      status: p.status,
      confirmations:
        p.status === 'confirmed'
          ? Math.max(required, latest ? confirmationsOf(p.blockNumber, latest) : required)
          : latest
            ? confirmationsOf(p.blockNumber, latest)
            : 0,
      required,
      explorerUrl: explorerLink(chain.name, p.txHash),
      isLate: p.isLate,
    })),
    payable,
    inFlight: inFlight
      ? { method: inFlight.method, message: `${describePaymentInFlight(inFlight)}. ${nextStepOf(inFlight)}`, resumeUrl: inFlight.resumeUrl }
      : null,
    deposit: deposit
      ? {
          address: deposit.address,
          uri: paymentRequestUri({
            chain,
            chargeId,
            deposit,
            token: { address: charge.tokenAddress, decimals: charge.tokenDecimals, isNative: token.isNative },
            amountBaseUnits: due > 0n ? due : charge.totalBaseUnits,
          }),
        }
      : null,
  };
}
