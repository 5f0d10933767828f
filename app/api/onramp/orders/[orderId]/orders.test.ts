// GET /api/onramp/orders/{orderId}: the order page's live view, public by its unguessable id.
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { onrampOrderEvents, onrampOrders } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { newUser } from '@/test/accounts';
import { callRoute } from '@/test/fixtures';
import { GET } from './route';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

function getOrder(orderId: string) {
  return callRoute(GET as never, { path: `/api/onramp/orders/${orderId}`, params: { orderId } });
}

describe('GET /api/onramp/orders/{orderId}', () => {
  it('returns the stored order, raised to the minimum, with the provider link while it is created', async () => {
    // Stored as place-order stores it (its provider call is the sandbox's HTTP API, not running here).
    const userId = await newUser();
    const orderId = newId('onrampOrder');
    const checkoutUrl = 'http://localhost:3999/sandbox-provider/pay/sps_test';
    await getDb()
      .insert(onrampOrders)
      .values({
        id: orderId,
        userId,
        providerId: 'moonpay',
        chain: 'POLYGON',
        tokenSymbol: 'USDC',
        tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
        tokenDecimals: 6,
        walletAddress: WALLET,
        walletLabel: 'Acme Games',
        country: 'US',
        paymentMethod: 'card',
        fiatCurrency: 'USD',
        requestedBaseUnits: 5_000000n,
        cryptoBaseUnits: 20_000000n,
        raisedToMinimum: true,
        quote: { total: '23.99' },
        fiatTotal: '23.99',
        checkoutUrl,
        expiresAt: new Date(Date.now() + 30 * 60_000),
      });
    await getDb()
      .insert(onrampOrderEvents)
      .values({ id: newId('onrampOrderEvent'), orderId, toStatus: 'created', source: 'buyer' });
    const res = await getOrder(orderId);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.json.data).toMatchObject({
      id: orderId,
      status: 'created',
      providerName: 'MoonPay',
      chainName: 'Polygon',
      tokenSymbol: 'USDC',
      requestedAmount: '5',
      cryptoAmount: '20',
      raisedToMinimum: true,
      walletAddress: WALLET,
      walletLabel: 'Acme Games',
      fiatTotal: '23.99000000',
      checkoutUrl,
      timeline: [expect.objectContaining({ toStatus: 'created' })],
    });
    // A receipt for whoever holds the link: nothing about the buyer's account.
    expect(res.json.data).not.toHaveProperty('userId');
    expect(JSON.stringify(res.json.data)).not.toContain(userId);
  });

  it.each([
    ['a well-formed id of no order', newId('onrampOrder')],
    ['a malformed id (never reaches the database)', "ord_' or 1=1 --"],
    ['another kind of id', newId('charge')],
  ])('404 not_found for %s', async (_case, orderId) => {
    const res = await getOrder(orderId);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ data: null, error: { code: 'not_found' } });
  });
});
