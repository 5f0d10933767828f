import type { APIRequestContext } from '@playwright/test';
import { merchantApi } from './api';
import { POLYGON_USDC } from './chain';

/** A live USDC charge on Polygon for one item, created through the API with a secret key. */
export async function createUsdcCharge(
  request: APIRequestContext,
  liveKey: string,
  amount: string,
  options: { itemName?: string; itemImage?: string; successUrl?: string; cancelUrl?: string | null } = {},
): Promise<{ chargeId: string; paymentUrl: string }> {
  const cancelUrl = options.cancelUrl === undefined ? 'https://shop.example/cancel' : options.cancelUrl;
  return merchantApi(request, liveKey).createCharge({
    chargeData: {
      symbol: 'USDC',
      chain: 'POLYGON',
      tokenAddress: POLYGON_USDC,
      amount,
      ...(options.successUrl ? { successUrl: options.successUrl } : {}),
      ...(cancelUrl ? { cancelUrl } : {}),
      items: [{ name: options.itemName ?? 'Gem pack', ...(options.itemImage ? { image: options.itemImage } : {}), amount, quantity: 1 }],
    },
  });
}
