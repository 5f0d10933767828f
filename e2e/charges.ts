import { expect, type APIRequestContext } from '@playwright/test';
import { POLYGON_USDC } from './chain';

/** A live USDC charge on Polygon for one item, created through the API with a secret key. */
export async function createUsdcCharge(
  request: APIRequestContext,
  liveKey: string,
  amount: string,
  options: { itemName?: string; itemImage?: string; successUrl?: string; cancelUrl?: string | null } = {},
): Promise<{ chargeId: string; paymentUrl: string }> {
  const cancelUrl = options.cancelUrl === undefined ? 'https://shop.example/cancel' : options.cancelUrl;
  const response = await request.post('/api/createCharge', {
    headers: { 'x-api-key': liveKey },
    data: {
      chargeData: {
        symbol: 'USDC',
        chain: 'POLYGON',
        tokenAddress: POLYGON_USDC,
        amount,
        ...(options.successUrl ? { successUrl: options.successUrl } : {}),
        ...(cancelUrl ? { cancelUrl } : {}),
        items: [{ name: options.itemName ?? 'Gem pack', ...(options.itemImage ? { image: options.itemImage } : {}), amount, quantity: 1 }],
      },
    },
  });
  expect(response.status()).toBe(200);
  return (await response.json()).data as { chargeId: string; paymentUrl: string };
}
