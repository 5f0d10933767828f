/**
 * The production build (what `npm start` serves) on its e2e stack: no charge on a chain nothing watches
 * (DFK_TESTNET has no RPC URL there and no local node: STACK_SKIP_LOCAL_CHAINS in playwright.config.ts), and the health probes a load balancer and monitoring use. (No demo
 * data: charge-checkout.spec.ts, "never seeds the demo merchant".)
 */
import { expect, test } from './fixtures';
import { createVerifiedMerchant, withE2eDatabase } from './admin';
import { merchantApi } from './api';

const NATIVE = '0x0000000000000000000000000000000000000000';

test.describe('the production build', () => {
  test('refuses a charge on a chain it does not serve, naming the variable that would serve it', async ({ request }) => {
    const merchant = await createVerifiedMerchant('Unserved Games');
    // A test charge on DFK runs on DFK_TESTNET, which has no RPC URL here.
    const response = await merchantApi(request, merchant.testKey).createChargeResponse({
      chargeData: { symbol: 'JEWEL', chain: 'DFK', tokenAddress: NATIVE, amount: '1' },
      isTest: true,
    });
    expect(response.status()).toBe(422);
    const { data, error } = await response.json();
    expect(data).toBeNull();
    expect(error).toMatchObject({ code: 'chain_not_configured', param: 'chargeData.chain' });
    expect(error.message).toContain('RPC_URL_DFK_TESTNET');
  });

  test('a charge whose chain is no longer served offers no way to pay', async ({ page, request }) => {
    const merchant = await createVerifiedMerchant('Stranded Games');
    const { chargeId, paymentUrl } = await merchantApi(request, merchant.liveKey).createCharge({
      chargeData: { symbol: 'JEWEL', chain: 'DFK', tokenAddress: NATIVE, amount: '5' },
    });
    // As if created on DFK_TESTNET before its RPC URL was removed from the configuration.
    await withE2eDatabase(async (sql) => {
      await sql`update charges set chain = 'DFK_TESTNET', mode = 'test' where id = ${chargeId}`;
      await sql`update deposit_addresses set chain = 'DFK_TESTNET' where charge_id = ${chargeId}`;
    });
    await page.goto(paymentUrl);
    await expect(page.getByTestId('chain-not-served')).toContainText('not available');
    await expect(page.getByTestId('deposit-address')).toHaveCount(0);
    await expect(page.getByText('Pay from your balance')).toHaveCount(0);
  });

  test('health: live and ready answer 200; the full report shows each chain, its watcher lag, the queue and webhooks', async ({
    request,
  }) => {
    const live = await request.get('/api/health/live');
    expect(live.status()).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await request.get('/api/health/ready');
    expect(ready.status()).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', db: 'ok', migrations: 'applied' });

    // The web process runs the watchers: POLYGON's cursor appears within a few polls.
    await expect
      .poll(async () => (await (await request.get('/api/health')).json()).chains.POLYGON.lagBlocks, { timeout: 20_000 })
      .toEqual(expect.any(Number));
    const health = await request.get('/api/health');
    expect(health.status()).toBe(200);
    const report = await health.json();
    expect(report).toMatchObject({ status: 'ok', db: 'ok', migrations: 'applied' });
    expect(report.chains.POLYGON).toMatchObject({ status: 'ok', head: expect.any(Number), cursor: expect.any(Number) });
    // Both Solana chains run on the launcher's local clusters; their head is the slot.
    expect(report.chains.SOLANA).toMatchObject({ status: 'ok', head: expect.any(Number) });
    expect(report.chains.SOLANA_DEVNET).toMatchObject({ status: 'ok', head: expect.any(Number) });
    expect(report.chains.DFK_TESTNET).toEqual({ status: 'not_configured', head: null, cursor: null, lagBlocks: null });
    expect(report.queue.queued).toEqual(expect.any(Number));
    expect(report.webhooks).toHaveProperty('oldestDueDeliverySeconds');
  });
});
