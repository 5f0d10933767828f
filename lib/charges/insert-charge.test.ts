import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { apiKeys, chargeEvents, charges, depositAddressPool, depositAddresses, webhookEvents, type ChargeRow } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import { chargeEventRow } from './charge-events';
import { insertCharge, OpenChargeCapReached, type NewChargeRows } from './insert-charge';

let merchant: TestMerchant;
let apiKeyId: string;
beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
  const [key] = await getDb().select().from(apiKeys).where(eq(apiKeys.merchantId, merchant.id));
  apiKeyId = key!.id;
});

function rowsFor(overrides: Partial<ChargeRow> = {}, depositAddress = `0x${randomBytes(20).toString('hex')}`): NewChargeRows {
  const now = new Date(Math.floor(Date.now() / 1000) * 1000 + 123);
  const charge: ChargeRow = {
    id: newId('charge'),
    merchantId: merchant.id,
    apiKeyId,
    viaPublishableKey: false,
    mode: 'live',
    chain: 'POLYGON',
    tokenSymbol: 'USDC',
    tokenAddress: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
    tokenDecimals: 6,
    totalBaseUnits: 123_456_789_012_345_678_901_234_567_890n,
    items: [{ name: 'Gem "pack" ✨', amount: '4.99', quantity: 2, unitBaseUnits: '4990000', lineTotalBaseUnits: '9980000' }],
    destination: 'to_address',
    toAddress: '0x000000000000000000000000000000000000dEaD',
    isDirectTransfer: false,
    successUrl: 'https://game.example/ok',
    cancelUrl: null,
    metadata: { orderId: 'A-1' },
    pricing: { currency: 'USD', amount: '9.98', rate: '1', rateSource: 'par', rateAt: now.toISOString() },
    allowanceId: null,
    needsReviewSince: null,
    status: 'pending',
    expiresAt: new Date(now.getTime() + 3_600_000),
    createdAt: now,
    updatedAt: now,
    ...overrides,
  };
  return {
    charge,
    openPublishableCap: null,
    event: { id: newId('chargeEvent'), type: 'charge.pending', actor: 'api_key:test', data: { requestId: 'req-1' } },
    depositAddress: {
      id: newId('depositAddress'),
      chain: charge.chain,
      family: 'evm',
      address: depositAddress,
      derivationIndex: 2_000_000_000 + Math.floor(Math.random() * 100_000_000),
      reference: null,
      watchUntil: new Date(charge.expiresAt.getTime() + 86_400_000),
      reuseFreedBefore: null,
    },
    outbox: chargeEventRow({ charge, type: 'charge.created', payments: [], createdAt: now }),
  };
}

describe("insertCharge (createCharge's single statement)", () => {
  it('stores the charge, its first event, its deposit address and its outbox event exactly as drizzle reads them back', async () => {
    const rows = rowsFor();
    await insertCharge(getDb(), rows);
    const [charge] = await getDb().select().from(charges).where(eq(charges.id, rows.charge.id));
    expect(charge).toEqual(rows.charge);
    const events = await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, rows.charge.id));
    expect(events).toEqual([
      {
        id: rows.event.id,
        chargeId: rows.charge.id,
        type: 'charge.pending',
        fromStatus: null,
        toStatus: 'pending',
        actor: 'api_key:test',
        data: { requestId: 'req-1' },
        createdAt: rows.charge.createdAt,
      },
    ]);
    const [deposit] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, rows.charge.id));
    // A new address has no Solana signature cursors yet, no Solana search behind it, and no slow-pass audit.
    const { reuseFreedBefore: _, ...stored } = rows.depositAddress;
    expect(deposit).toEqual({
      ...stored,
      chargeId: rows.charge.id,
      createdAt: rows.charge.createdAt,
      referenceCursor: null,
      receiveCursor: null,
      searchedAt: null,
      searchedSlot: null,
      searchedUntil: null,
      lastAuditedAt: null,
      releasedAt: null,
      releaseCheckAt: null,
    });
    const [outbox] = await getDb().select().from(webhookEvents).where(eq(webhookEvents.chargeId, rows.charge.id));
    expect(outbox).toEqual({ ...rows.outbox, relayedAt: null });
    // The payload keeps its key order (json, not jsonb) and the exact amount.
    expect(Object.keys(outbox!.payload)).toEqual(['id', 'object', 'type', 'mode', 'sequence', 'createdAt', 'data']);
    expect(JSON.stringify(outbox!.payload)).toContain('"amountBaseUnits":"123456789012345678901234567890"');
  });

  it('is all or nothing: when the deposit address row fails, no charge, event or outbox row remains', async () => {
    const first = rowsFor();
    await insertCharge(getDb(), first);
    // An open lease's derivation index (so its address) is unique.
    const clash = rowsFor({}, first.depositAddress.address);
    clash.depositAddress.derivationIndex = first.depositAddress.derivationIndex;
    await expect(insertCharge(getDb(), clash)).rejects.toThrow();
    expect(await getDb().select().from(charges).where(eq(charges.id, clash.charge.id))).toEqual([]);
    expect(await getDb().select().from(chargeEvents).where(eq(chargeEvents.chargeId, clash.charge.id))).toEqual([]);
    expect(await getDb().select().from(webhookEvents).where(eq(webhookEvents.id, clash.outbox.id))).toEqual([]);
  });

  it("runs inside a caller's transaction and rolls back with it", async () => {
    const rows = rowsFor();
    await expect(
      getDb().transaction(async (tx) => {
        await insertCharge(tx, rows);
        expect(await tx.select().from(charges).where(eq(charges.id, rows.charge.id))).toHaveLength(1);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await getDb().select().from(charges).where(eq(charges.id, rows.charge.id))).toEqual([]);
  });

  it('leases a pooled address of the merchant instead of the fresh one, and leaves the pool as it was when the cap refuses the charge', async () => {
    const old = rowsFor();
    await insertCharge(getDb(), old);
    await getDb().update(depositAddresses).set({ releasedAt: new Date() }).where(eq(depositAddresses.id, old.depositAddress.id));
    await getDb()
      .insert(depositAddressPool)
      .values({
        chain: 'POLYGON',
        address: old.depositAddress.address,
        merchantId: merchant.id,
        mode: 'live',
        derivationIndex: old.depositAddress.derivationIndex,
        lastDepositAddressId: old.depositAddress.id,
        freeSince: new Date(Date.now() - 60_000),
      });
    const pool = () => getDb().select().from(depositAddressPool).where(eq(depositAddressPool.address, old.depositAddress.address));

    const capped = rowsFor();
    capped.depositAddress.reuseFreedBefore = new Date();
    await expect(insertCharge(getDb(), { ...capped, openPublishableCap: 0 })).rejects.toBeInstanceOf(OpenChargeCapReached);
    expect(await pool()).toHaveLength(1);

    // Free for less time than asked: the fresh address.
    const early = rowsFor();
    early.depositAddress.reuseFreedBefore = new Date(Date.now() - 3_600_000);
    await insertCharge(getDb(), early);
    const [fresh] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, early.charge.id));
    expect(fresh!.address).toBe(early.depositAddress.address);

    const reused = rowsFor();
    reused.depositAddress.reuseFreedBefore = new Date();
    await insertCharge(getDb(), reused);
    const [leased] = await getDb().select().from(depositAddresses).where(eq(depositAddresses.chargeId, reused.charge.id));
    expect(leased).toMatchObject({
      address: old.depositAddress.address,
      derivationIndex: old.depositAddress.derivationIndex,
      releasedAt: null,
    });
    expect(await pool()).toEqual([]);
  });
});
