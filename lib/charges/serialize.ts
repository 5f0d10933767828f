import { CHAINS, type ChainName } from '@/lib/chains/registry';
import type { ChargeEventRow, ChargeRow, PaymentRow } from '@/lib/db/schema';
import { checkoutBaseUrl } from '@/lib/env';
import { formatAmount } from '@/lib/money';
import type { ChargePaymentResource, ChargeResource } from './schemas';

export function paymentUrlFor(chargeId: string): string {
  return `${checkoutBaseUrl()}/checkout/${chargeId}`;
}

/**
 * The charge as the API returns it (and as webhooks carry it). `events` adds the timeline and
 * `payments` the transfers seen (single-charge responses and webhooks; lists carry neither).
 */
export function serializeCharge(row: ChargeRow, events?: readonly ChargeEventRow[], payments?: readonly PaymentRow[]): ChargeResource {
  const decimals = row.tokenDecimals;
  const resource: ChargeResource = {
    id: row.id,
    object: 'charge',
    mode: row.mode,
    status: row.status,
    chain: CHAINS[row.chain as ChainName].name,
    token: { symbol: row.tokenSymbol, address: row.tokenAddress, decimals },
    amount: formatAmount(row.totalBaseUnits, decimals),
    amountBaseUnits: row.totalBaseUnits.toString(),
    items: row.items.map((item) => ({
      name: item.name,
      ...(item.image ? { image: item.image } : {}),
      amount: formatAmount(BigInt(item.unitBaseUnits), decimals),
      quantity: item.quantity,
      lineTotal: formatAmount(BigInt(item.lineTotalBaseUnits), decimals),
    })),
    destination: row.destination,
    toAddress: row.toAddress,
    isDirectTransfer: row.isDirectTransfer,
    successUrl: row.successUrl,
    cancelUrl: row.cancelUrl,
    metadata: row.metadata,
    pricing: row.pricing,
    paidUnderAllowance: row.allowanceId !== null,
    paymentUrl: paymentUrlFor(row.id),
    expiresAt: row.expiresAt.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
  if (events) {
    resource.timeline = events.map((event) => ({
      status: event.toStatus,
      type: event.type,
      at: event.createdAt.toISOString(),
    }));
  }
  if (payments) resource.payments = payments.map((payment) => serializeChargePayment(payment, decimals));
  return resource;
}

function serializeChargePayment(payment: PaymentRow, decimals: number): ChargePaymentResource {
  return {
    id: payment.id,
    chain: CHAINS[payment.chain as ChainName].name,
    txHash: payment.txHash,
    fromAddress: payment.fromAddress,
    amount: formatAmount(payment.amountBaseUnits, decimals),
    amountBaseUnits: payment.amountBaseUnits.toString(),
    status: payment.status,
    isLate: payment.isLate,
    blockNumber: payment.blockNumber.toString(),
    createdAt: payment.createdAt.toISOString(),
  };
}
