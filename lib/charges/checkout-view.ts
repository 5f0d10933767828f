/**
 * What the hosted checkout may show of a charge: no merchant internals (key, metadata, URLs other
 * than the redirects), amounts as exact decimal text.
 */
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { isChainServed } from '@/lib/chains/served';
import { formatAmount } from '@/lib/money';
import { findChargeForCheckout } from './get-charge';
import type { ChargeStatus } from './state';
import { tokenOfCharge } from '@/lib/charges/charge-token';

export interface CheckoutView {
  id: string;
  merchantName: string;
  merchantLogoUrl: string | null;
  isTest: boolean;
  status: ChargeStatus;
  chainName: string;
  chain: ChainName;
  /** False when nothing watches the chain here any more (its RPC URL was removed): the checkout offers no way to pay. */
  isChainServed: boolean;
  token: { symbol: string; address: string; decimals: number; isNative: boolean };
  total: string;
  totalBaseUnits: string;
  items: { name: string; image?: string; quantity: number; unitAmount: string; lineTotal: string }[];
  expiresAt: string;
  successUrl: string | null;
  cancelUrl: string | null;
  /** A charge priced in US dollars: the price and the rate locked at creation. */
  pricing: { usd: string; rate: string; rateSource: 'par' | 'price_feed' } | null;
}

export async function loadCheckoutView(chargeId: string, now = new Date()): Promise<CheckoutView | undefined> {
  if (!/^ch_[0-9A-Za-z]{22}$/.test(chargeId)) return undefined;
  const found = await findChargeForCheckout(chargeId);
  if (!found) return undefined;
  const { charge, merchantName, merchantLogoUrl } = found;
  const chain = CHAINS[charge.chain as ChainName];
  const decimals = charge.tokenDecimals;
  const token = tokenOfCharge(charge);
  // The background sweep persists expiry within seconds; the page never shows a lapsed charge as payable.
  const status: ChargeStatus = charge.status === 'pending' && charge.expiresAt <= now ? 'expired' : charge.status;
  return {
    id: charge.id,
    merchantName,
    merchantLogoUrl,
    isTest: charge.mode === 'test',
    status,
    chainName: chain.displayName,
    chain: chain.name,
    isChainServed: isChainServed(chain.name),
    token: { symbol: charge.tokenSymbol, address: charge.tokenAddress, decimals, isNative: token?.isNative ?? false },
    total: formatAmount(charge.totalBaseUnits, decimals),
    totalBaseUnits: charge.totalBaseUnits.toString(),
    items: charge.items.map((item) => ({
      name: item.name,
      ...(item.image ? { image: item.image } : {}),
      quantity: item.quantity,
      unitAmount: formatAmount(BigInt(item.unitBaseUnits), decimals),
      lineTotal: formatAmount(BigInt(item.lineTotalBaseUnits), decimals),
    })),
    expiresAt: charge.expiresAt.toISOString(),
    successUrl: charge.successUrl,
    cancelUrl: charge.cancelUrl,
    pricing: charge.pricing ? { usd: charge.pricing.amount, rate: charge.pricing.rate, rateSource: charge.pricing.rateSource } : null,
  };
}
