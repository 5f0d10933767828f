import { eq, sql } from 'drizzle-orm';
import { parseUnits } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { CHAINS, EVM_NATIVE_TOKEN_ADDRESS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { onrampOrders, onrampProviders, outboundTransfers, walletIncomingTransfers } from '@/lib/db/schema';
import { newId, randomBase62 } from '@/lib/ids';
import { appError, newUser } from '@/test/accounts';
import { createTestCharge, newMerchant, POLYGON_USDC } from '@/test/fixtures';
import { listWalletActivity, type ActivityItem } from './activity';
import { createWalletsForUser } from '@/lib/keyring/create-wallets';

const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
const PROVIDER = `test-provider-${randomBase62(6).toLowerCase()}`;
const hash = () => `0x${randomBase62(32).toLowerCase().padEnd(64, '0')}`;

let userId: string;
let evmAddress: string;
let otherAddress: string;
let chargeId: string;

async function userWithWallet(): Promise<{ userId: string; address: string }> {
  const id = await newUser();
  const created = await createWalletsForUser(getDb(), id);
  return { userId: id, address: created.find((w) => w.family === 'evm')!.address };
}

function incoming(overrides: Partial<typeof walletIncomingTransfers.$inferInsert> & { blockTime: Date }) {
  return {
    id: `win_${randomBase62(22)}`,
    chain: 'POLYGON',
    txHash: hash(),
    logIndex: 0,
    fromAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    toAddress: evmAddress,
    tokenAddress: USDC.address,
    amountBaseUnits: parseUnits('5', 6),
    blockNumber: 1n,
    blockHash: hash(),
    status: 'confirmed' as const,
    ...overrides,
  };
}

function outbound(overrides: Partial<typeof outboundTransfers.$inferInsert>) {
  return {
    id: newId('outboundTransfer'),
    purpose: 'wallet_send' as const,
    chain: 'POLYGON',
    fromAddress: evmAddress,
    toAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    tokenAddress: USDC.address,
    amountBaseUnits: parseUnits('1.5', 6),
    nonce: 0,
    txHash: hash(),
    rawTransaction: '0x',
    status: 'confirmed' as const,
    ...overrides,
  };
}

function order(overrides: Partial<typeof onrampOrders.$inferInsert>) {
  return {
    id: `ord_${randomBase62(22)}`,
    providerId: PROVIDER,
    chain: 'POLYGON',
    tokenSymbol: 'USDC',
    tokenAddress: USDC.address,
    tokenDecimals: 6,
    walletAddress: evmAddress,
    country: 'FR',
    paymentMethod: 'card',
    fiatCurrency: 'USD',
    requestedBaseUnits: parseUnits('20', 6),
    cryptoBaseUnits: parseUnits('20', 6),
    quote: {},
    fiatTotal: '21.50',
    expiresAt: new Date(Date.now() + 3600_000),
    ...overrides,
  };
}

/** Every page, following the cursor. */
async function allPages(limit: number): Promise<ActivityItem[][]> {
  const pages: ActivityItem[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listWalletActivity({ userId, cursor, limit });
    pages.push(page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return pages;
}

const at = (iso: string) => new Date(iso);

beforeAll(async () => {
  ({ userId, address: evmAddress } = await userWithWallet());
  otherAddress = (await userWithWallet()).address;
  // Switched off: a row for this test's orders only, never offered by the registry queries of other tests.
  await getDb()
    .insert(onrampProviders)
    .values({ id: PROVIDER, displayName: 'Test Ramp', facts: {}, reviewedOn: '2026-11-22', enabled: false });
  const merchant = await newMerchant({ name: 'Demo Game Studio' });
  ({ chargeId } = await createTestCharge({
    apiKey: merchant.liveKey,
    body: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: POLYGON_USDC, amount: '3.75' } },
  }));

  const deliveryHash = hash();
  await getDb()
    .insert(onrampOrders)
    .values([
      // By the user, delivered: its delivery transfer is not listed a second time.
      order({
        userId,
        status: 'completed',
        deliveredBaseUnits: parseUnits('19.9', 6),
        deliveryTxHash: deliveryHash,
        createdAt: at('2026-03-01T10:00:00Z'),
      }),
      // Anonymous buyer, delivering to the user's wallet (a merchant's on-ramp link): still the user's activity.
      order({ userId: null, status: 'pending', createdAt: at('2026-03-01T11:00:00Z') }),
      // Someone else's order to someone else's wallet.
      order({ userId: null, walletAddress: otherAddress, createdAt: at('2026-03-01T12:00:00Z') }),
    ]);
  await getDb()
    .insert(walletIncomingTransfers)
    .values([
      incoming({ txHash: deliveryHash, blockTime: at('2026-03-01T10:05:00Z'), amountBaseUnits: parseUnits('19.9', 6) }),
      incoming({
        blockTime: at('2026-03-02T09:00:00Z'),
        tokenAddress: EVM_NATIVE_TOKEN_ADDRESS,
        logIndex: -1,
        amountBaseUnits: parseUnits('0.25', 18),
        status: 'pending',
      }),
      incoming({ blockTime: at('2026-03-02T09:00:00Z') }),
      incoming({
        blockTime: at('2026-03-02T09:00:00Z'),
        chain: 'BSC',
        tokenAddress: CHAINS.BSC.tokens[1]!.address,
        amountBaseUnits: parseUnits('7', 18),
      }),
      incoming({ toAddress: otherAddress, blockTime: at('2026-03-02T09:30:00Z') }),
    ]);
  await getDb()
    .insert(outboundTransfers)
    .values([
      outbound({ createdAt: at('2026-03-03T08:00:00Z') }),
      outbound({ createdAt: at('2026-03-03T08:00:00Z'), status: 'broadcast', nonce: 1 }),
      outbound({
        purpose: 'balance_payment',
        chargeId,
        amountBaseUnits: parseUnits('3.75', 6),
        createdAt: at('2026-03-04T08:00:00Z'),
        nonce: 2,
      }),
      outbound({ fromAddress: otherAddress, createdAt: at('2026-03-04T09:00:00Z') }),
    ]);
});

describe('wallet activity', () => {
  it('merges on-ramp orders, received and sent transfers and charge payments, newest first, each once', async () => {
    const { items, nextCursor } = await listWalletActivity({ userId });
    expect(nextCursor).toBeUndefined();
    expect(items.map((i) => i.kind)).toEqual(['charge_payment', 'sent', 'sent', 'received', 'received', 'received', 'onramp', 'onramp']);
    const times = items.map((i) => i.occurredAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const [payment] = items;
    expect(payment).toMatchObject({
      title: 'Paid Demo Game Studio',
      amount: '3.75',
      tokenSymbol: 'USDC',
      status: 'completed',
      chargeId,
      href: `/checkout/${chargeId}`,
    });
    const pending = items.find((i) => i.kind === 'sent' && i.status === 'pending')!;
    expect(pending).toMatchObject({ statusLabel: 'Sending', amount: '1.5', counterparty: '0x90F79bf6EB2c4f870365E785982E1f101E93b906' });
    const native = items.find((i) => i.kind === 'received' && i.tokenSymbol === 'POL')!;
    expect(native).toMatchObject({ amount: '0.25', status: 'pending', statusLabel: 'Confirming' });
    const orders = items.filter((i) => i.kind === 'onramp');
    expect(orders.map((o) => [o.status, o.amount, o.href])).toEqual([
      ['pending', '20', `/onramp/orders/${orders[0]!.id}`],
      ['completed', '19.9', `/onramp/orders/${orders[1]!.id}`],
    ]);
    expect(orders[1]!.title).toBe('Bought USDC with Test Ramp');
    // The on-ramp's delivery shows as the order only.
    expect(items.filter((i) => i.txHash === orders[1]!.txHash)).toHaveLength(1);
  });

  it('links transactions to the explorer, except on local development chains', async () => {
    const { items } = await listWalletActivity({ userId });
    const bsc = items.find((i) => i.chain === 'BSC')!;
    expect(bsc).toMatchObject({ amount: '7', tokenSymbol: 'USDT', explorerUrl: `https://bscscan.com/tx/${bsc.txHash}` });
    // POLYGON runs on a local node in tests.
    expect(items.filter((i) => i.chain === 'POLYGON').every((i) => i.explorerUrl === undefined)).toBe(true);
  });

  it('pages by cursor: newest first, nothing lost or repeated, also across rows of the same instant', async () => {
    const everything = (await listWalletActivity({ userId })).items.map((i) => i.id);
    for (const limit of [1, 2, 3, 5]) {
      const pages = await allPages(limit);
      expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
      expect(pages.flat().map((i) => i.id)).toEqual(everything);
    }
  });

  it('keeps microseconds in the cursor: rows a microsecond apart are not skipped', async () => {
    const { userId: id, address } = await userWithWallet();
    const rows = [
      outbound({ fromAddress: address }),
      outbound({ fromAddress: address, nonce: 1 }),
      outbound({ fromAddress: address, nonce: 2 }),
    ];
    await getDb().insert(outboundTransfers).values(rows);
    const times = ['2026-05-01T00:00:00.000003Z', '2026-05-01T00:00:00.000002Z', '2026-05-01T00:00:00.000001Z'];
    for (const [i, row] of rows.entries()) {
      await getDb().execute(sql`update outbound_transfers set created_at = ${times[i]}::timestamptz where id = ${row.id}`);
    }
    const first = await listWalletActivity({ userId: id, limit: 1 });
    expect(first.nextCursor).toMatch(/^2026-05-01T00:00:00\.000003Z~/);
    const second = await listWalletActivity({ userId: id, limit: 1, cursor: first.nextCursor });
    const third = await listWalletActivity({ userId: id, limit: 1, cursor: second.nextCursor });
    expect([first, second, third].map((p) => p.items[0]!.id)).toEqual(rows.map((r) => r.id));
    expect(third.nextCursor).toBeUndefined();
  });

  it('shows nothing of other users, and refuses a malformed cursor', async () => {
    const { userId: stranger } = await userWithWallet();
    expect((await listWalletActivity({ userId: stranger })).items).toEqual([]);
    expect(await appError(listWalletActivity({ userId, cursor: "2026'; drop table x" }))).toMatchObject({
      code: 'invalid_request',
      param: 'after',
    });
  });

  it('an on-ramp order shows while pending and moves with its status', async () => {
    const { userId: buyer, address } = await userWithWallet();
    const row = order({ userId: buyer, walletAddress: address, status: 'created' });
    await getDb().insert(onrampOrders).values(row);
    expect((await listWalletActivity({ userId: buyer })).items.map((i) => [i.kind, i.status, i.statusLabel])).toEqual([
      ['onramp', 'pending', 'Awaiting payment'],
    ]);
    await getDb().update(onrampOrders).set({ status: 'failed' }).where(eq(onrampOrders.id, row.id));
    expect((await listWalletActivity({ userId: buyer })).items.map((i) => [i.status, i.statusLabel])).toEqual([['failed', 'Failed']]);
  });
});
