import { describe, expect, it } from 'vitest';
import { createUser } from '@/lib/accounts/create-user';
import { getDb } from '@/lib/db/client';
import { merchantMembers } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { uniqueEmail } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { loadLinkedAccounts } from './linked-accounts';

describe('Linked Accounts tab', () => {
  it("shows the merchant's service wallets with live balances, and the member's own wallets and sign-in methods; outsiders are refused", async () => {
    const merchant = await newMerchant();
    const email = uniqueEmail('linked');
    const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
    await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: user.id, role: 'viewer' });

    const before = await loadLinkedAccounts({ userId: user.id, merchantId: merchant.id, mode: 'live' });
    const evm = before.merchantWallets.find((w) => w.family === 'evm')!;
    expect(before.merchantWallets.map((w) => w.family).sort()).toEqual(['evm', 'solana']);
    await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: evm.address as `0x${string}` });

    const linked = await loadLinkedAccounts({ userId: user.id, merchantId: merchant.id, mode: 'live' });
    const balances = linked.merchantWallets.find((w) => w.family === 'evm')!.balances;
    expect(balances.find((b) => b.chain === 'POLYGON' && b.symbol === 'USDC')?.amount).toBe('1000000');
    // Only main networks in live mode; a network without a reachable node shows no number rather than 0.
    expect(balances.every((b) => !b.chain.endsWith('_TESTNET') && b.chain !== 'POLYGON_AMOY')).toBe(true);
    expect(linked.yourWallets.map((w) => w.family).sort()).toEqual(['evm', 'solana']);
    expect(linked.yourWallets[0]!.address).not.toBe(evm.address);
    expect(linked.signInMethods).toEqual([{ provider: 'email', label: expect.stringContaining('@example.test') }]);
    expect(linked.phone).toBeNull();

    const testMode = await loadLinkedAccounts({ userId: user.id, merchantId: merchant.id, mode: 'test' });
    expect(
      testMode.merchantWallets
        .find((w) => w.family === 'evm')!
        .balances.every((b) => ['POLYGON_AMOY', 'BSC_TESTNET', 'DFK_TESTNET'].includes(b.chain)),
    ).toBe(true);

    const outsider = await getDb().transaction((tx) =>
      createUser(tx, { email: uniqueEmail('out'), emailVerified: true, method: 'email', subject: uniqueEmail('out') }),
    );
    await expect(loadLinkedAccounts({ userId: outsider.id, merchantId: merchant.id, mode: 'live' })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });
});
