import { CHAINS, type ChainName } from '@/lib/chains/registry';
import type { ChargeEventRow, ChargeRow } from '@/lib/db/schema';
import { checkoutBaseUrl } from '@/lib/env';
import { formatAmount } from '@/lib/money';
import type { ChargeResource } from './schemas';

export function paymentUrlFor(chargeId: string): string {
  return `${checkoutBaseUrl()}/checkout/${chargeId}`;
}

/** The charge as the API returns it (and as webhooks will carry it). */
export function serializeCharge(row: ChargeRow, events?: readonly ChargeEventRow[]): ChargeResource {
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
  return resource;
}
