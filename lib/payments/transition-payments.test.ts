import { eq, inArray } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { payments, type PaymentStatus } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { createTestCharge, newMerchant, type TestMerchant, usdcCharge } from '@/test/fixtures';
import { IllegalTransitionError } from '@/lib/state-machine';
import { transitionPayments } from './transition-payments';

let merchant: TestMerchant;
let chargeId: string;

beforeAll(async () => {
  merchant = await newMerchant();
  ({ chargeId } = await createTestCharge({ apiKey: merchant.liveKey, body: usdcCharge() }));
});

async function paymentIn(status: PaymentStatus): Promise<string> {
  const id = newId('payment');
  await getDb()
    .insert(payments)
    .values({
      id,
      chargeId,
      chain: 'POLYGON',
      txHash: `0x${crypto.randomUUID().replaceAll('-', '').padEnd(64, '0')}`,
      logIndex: 0,
      fromAddress: '0x0000000000000000000000000000000000000001',
      toAddress: '0x0000000000000000000000000000000000000002',
      tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
      amountBaseUnits: 1n,
      blockNumber: 1n,
      blockHash: '0x01',
      status,
    });
  return id;
}

async function statusesOf(ids: string[]): Promise<PaymentStatus[]> {
  const rows = await getDb().select({ id: payments.id, status: payments.status }).from(payments).where(inArray(payments.id, ids));
  return ids.map((id) => rows.find((row) => row.id === id)!.status);
}

describe('transitionPayments: a payment changes status only through the table (lib/payments/state.ts)', () => {
  it('moves a pending payment to confirmed, with its patch', async () => {
    const id = await paymentIn('pending');
    await getDb().update(payments).set({ missingSinceBlock: 7n }).where(eq(payments.id, id));
    expect(await transitionPayments(getDb(), { ids: [id], to: 'confirmed', patch: { missingSinceBlock: null } })).toEqual([id]);
    const [row] = await getDb().select().from(payments).where(eq(payments.id, id));
    expect(row).toMatchObject({ status: 'confirmed', missingSinceBlock: null });
  });

  it('leaves a payment already in the target status as it is', async () => {
    const id = await paymentIn('pending');
    expect(await transitionPayments(getDb(), { ids: [id], to: 'pending' })).toEqual([]);
    expect(await statusesOf([id])).toEqual(['pending']);
  });

  it('refuses confirmed → dropped, and the whole batch rolls back with it', async () => {
    const pending = await paymentIn('pending');
    const confirmed = await paymentIn('confirmed');
    const attempt = getDb().transaction((tx) => transitionPayments(tx, { ids: [pending, confirmed], to: 'dropped' }));
    await expect(attempt).rejects.toBeInstanceOf(IllegalTransitionError);
    await expect(attempt).rejects.toThrow(`Payment ${confirmed} cannot go from confirmed to dropped`);
    expect(await statusesOf([pending, confirmed])).toEqual(['pending', 'confirmed']);
  });
});
