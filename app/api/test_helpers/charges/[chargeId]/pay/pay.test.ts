/**
 * POST /api/test_helpers/charges/{chargeId}/pay against real PostgreSQL and the local Polygon Amoy node:
 * a test key pays its test charge for real (the watcher then settles it and the webhook event is stored);
 * production keys, other merchants' charges, unpayable charges, bad amounts and a server with the helpers
 * turned off are refused without sending anything.
 */
import { and, eq } from 'drizzle-orm';
import { createPublicClient, http, type Address } from 'viem';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { charges, depositAddresses, webhookEvents } from '@/lib/db/schema';
import { resetEnvCache, rpcUrl } from '@/lib/env';
import { localDemoPayerAccount } from '@/scripts/stack/local-chain';
import { pollChain } from '@/lib/payments/poll-chain';
import { POST as createChargeRoute } from '@/app/api/createCharge/route';
import { callRoute, newMerchant, type TestMerchant } from '@/test/fixtures';
import { POST } from './route';

const NATIVE = '0x0000000000000000000000000000000000000000';
let merchant: TestMerchant;
const amoy = () => createPublicClient({ transport: http(rpcUrl('POLYGON_AMOY')!) });

beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
});

afterEach(() => {
  delete process.env.TEST_HELPERS_ENABLED;
  resetEnvCache();
});

async function testCharge(amount = '0.3', key = merchant.testKey): Promise<{ chargeId: string; depositAddress: Address }> {
  const res = await callRoute(createChargeRoute, {
    apiKey: key,
    body: { chargeData: { chain: 'POLYGON', symbol: 'POL', tokenAddress: NATIVE, amount }, isTest: true },
  });
  expect(res.status).toBe(200);
  const chargeId = res.json.data.chargeId as string;
  const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, chargeId));
  return { chargeId, depositAddress: deposit!.address as Address };
}

const pay = (chargeId: string, options: { apiKey?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
  callRoute(POST, { apiKey: options.apiKey ?? merchant.testKey, params: { chargeId }, body: options.body ?? {}, headers: options.headers });

async function statusOf(chargeId: string): Promise<string> {
  const [row] = await getDb().select({ status: charges.status }).from(charges).where(eq(charges.id, chargeId));
  return row!.status;
}

async function untilSucceeded(chargeId: string): Promise<string> {
  for (let i = 0; i < 40 && (await statusOf(chargeId)) !== 'succeeded'; i++) {
    await pollChain('POLYGON_AMOY');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return statusOf(chargeId);
}

describe('POST /api/test_helpers/charges/{chargeId}/pay', () => {
  it('pays what is due from the demo payer; the watcher settles the charge and charge.succeeded is stored', async () => {
    const { chargeId, depositAddress } = await testCharge('0.3');
    const res = await pay(chargeId);
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      object: 'test_payment',
      chargeId,
      chain: 'POLYGON_AMOY',
      fromAddress: localDemoPayerAccount.address,
      amount: '0.3',
      amountBaseUnits: '300000000000000000',
    });
    expect(res.json.data.toAddress.toLowerCase()).toBe(depositAddress.toLowerCase());
    const receipt = await amoy().getTransactionReceipt({ hash: res.json.data.txHash });
    expect(receipt.status).toBe('success');
    expect(await amoy().getBalance({ address: depositAddress })).toBe(300000000000000000n);

    expect(await untilSucceeded(chargeId)).toBe('succeeded');
    const events = await getDb()
      .select()
      .from(webhookEvents)
      .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, 'charge.succeeded')));
    expect(events).toHaveLength(1);

    // Paid in full: nothing more to pay.
    const again = await pay(chargeId);
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ code: 'charge_not_payable', param: 'chargeId' });
  });

  it('pays a given amount (partial), and the same Idempotency-Key replays the payment instead of sending twice', async () => {
    const { chargeId, depositAddress } = await testCharge('0.5');
    const headers = { 'idempotency-key': `pay-${chargeId}` };
    const first = await pay(chargeId, { body: { amount: '0.2' }, headers });
    expect(first.status).toBe(200);
    expect(first.json.data.amount).toBe('0.2');
    const replay = await pay(chargeId, { body: { amount: '0.2' }, headers });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.json.data.txHash).toBe(first.json.data.txHash);
    expect(await amoy().getBalance({ address: depositAddress })).toBe(200000000000000000n);
  });

  it('refuses a production key (403 test_key_required) and sends nothing', async () => {
    const { chargeId, depositAddress } = await testCharge();
    const res = await pay(chargeId, { apiKey: merchant.liveKey! });
    expect(res.status).toBe(403);
    expect(res.json.error!.code).toBe('test_key_required');
    expect(await amoy().getBalance({ address: depositAddress })).toBe(0n);
  });

  it('refuses when the server turned the helpers off (TEST_HELPERS_ENABLED=false, the production default)', async () => {
    const { chargeId, depositAddress } = await testCharge();
    process.env.TEST_HELPERS_ENABLED = 'false';
    resetEnvCache();
    const res = await pay(chargeId);
    expect(res.status).toBe(403);
    expect(res.json.error).toMatchObject({ code: 'forbidden' });
    expect(res.json.error!.message).toMatch(/TEST_HELPERS_ENABLED/);
    expect(await amoy().getBalance({ address: depositAddress })).toBe(0n);
  });

  it("another merchant's charge is not found; a bad amount is 422 invalid_amount; unknown fields are 400", async () => {
    const { chargeId, depositAddress } = await testCharge();
    const other = await newMerchant();
    const foreign = await pay(chargeId, { apiKey: other.testKey });
    expect(foreign.status).toBe(404);
    expect(foreign.json.error!.code).toBe('not_found');

    const tooPrecise = await pay(chargeId, { body: { amount: '0.0000000000000000001' } });
    expect(tooPrecise.status).toBe(422);
    expect(tooPrecise.json.error).toMatchObject({ code: 'invalid_amount', param: 'amount' });

    const unknown = await pay(chargeId, { body: { amount: '0.1', to: '0xabc' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error!.code).toBe('invalid_request');
    expect(await amoy().getBalance({ address: depositAddress })).toBe(0n);
  });
});
