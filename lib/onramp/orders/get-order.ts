/** The order page's view of an order: anyone with the (unguessable) order link may read it, like a receipt. */
import { asc, eq } from 'drizzle-orm';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { explorerLink } from '@/lib/chains/explorer-link';
import { failureMessage } from '@/lib/onramp/failure-message';
import { getDb } from '@/lib/db/client';
import { onrampOrderEvents, onrampOrders, onrampProviders } from '@/lib/db/schema';
import { formatAmount } from '@/lib/money';
import type { z } from 'zod';
import type { onrampOrderSchema } from '@/lib/onramp/schemas';

/** The order's wire format (lib/onramp/schemas.ts). */
export type OnrampOrderView = z.infer<typeof onrampOrderSchema>;

export async function getOnrampOrderView(orderId: string): Promise<OnrampOrderView | null> {
  const [row] = await getDb()
    .select({ order: onrampOrders, providerName: onrampProviders.displayName })
    .from(onrampOrders)
    .innerJoin(onrampProviders, eq(onrampProviders.id, onrampOrders.providerId))
    .where(eq(onrampOrders.id, orderId));
  if (!row) return null;
  const { order } = row;
  const events = await getDb()
    .select()
    .from(onrampOrderEvents)
    .where(eq(onrampOrderEvents.orderId, orderId))
    .orderBy(asc(onrampOrderEvents.createdAt));
  const chain = CHAINS[order.chain as ChainName];
  return {
    id: order.id,
    status: order.status,
    providerName: row.providerName,
    chain: chain.name,
    chainName: chain.displayName,
    tokenSymbol: order.tokenSymbol,
    cryptoAmount: formatAmount(order.cryptoBaseUnits, order.tokenDecimals),
    requestedAmount: formatAmount(order.requestedBaseUnits, order.tokenDecimals),
    raisedToMinimum: order.raisedToMinimum,
    deliveredAmount: order.deliveredBaseUnits === null ? null : formatAmount(order.deliveredBaseUnits, order.tokenDecimals),
    walletAddress: order.walletAddress,
    walletLabel: order.walletLabel,
    fiatTotal: order.fiatTotal,
    fiatCurrency: order.fiatCurrency,
    paymentMethod: order.paymentMethod,
    deliveryTxHash: order.deliveryTxHash,
    explorerUrl: explorerLink(order.chain, order.deliveryTxHash) ?? null,
    failureReason: failureMessage(order.failureReason),
    checkoutUrl: order.status === 'created' ? order.checkoutUrl : null,
    chargeId: order.chargeId,
    createdAt: order.createdAt.toISOString(),
    timeline: events.map((event) => ({
      toStatus: event.toStatus,
      at: event.createdAt.toISOString(),
      providerStatus: event.providerStatus,
    })),
  };
}
