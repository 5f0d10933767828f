import { and, eq } from 'drizzle-orm';
import { createPublicClient, createWalletClient, erc20Abi, http, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeEach, describe, expect, it } from 'vitest';
import demoTokenArtifact from '@/lib/chains/artifacts/DemoToken.json' with { type: 'json' };
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { auditLog, charges, merchantMembers } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { localMinterAccount } from '@/scripts/stack/local-chain';
import { pollChain } from '@/lib/payments/poll-chain';
import { appError, newUser } from '@/test/accounts';
import { createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { addCustomToken, listAcceptedTokens, setTokenEnabled } from './tokens';

const USDT = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDT')!;
let merchant: TestMerchant;
let developer: string;
let viewer: string;

beforeEach(async () => {
  merchant = await newMerchant();
  developer = await newUser();
  viewer = await newUser();
  await getDb()
    .insert(merchantMembers)
    .values([
      { merchantId: merchant.id, userId: developer, role: 'developer' },
      { merchantId: merchant.id, userId: viewer, role: 'viewer' },
    ]);
});

const as = (userId: string) => ({ userId, merchantId: merchant.id });
const charge = (chargeData: Record<string, unknown>) => createTestCharge({ apiKey: merchant.liveKey!, body: { chargeData } });

/** A real ERC-20 (the demo token contract) planted at a fresh address on the local Polygon node. */
async function plantToken(symbol: string, decimals: number): Promise<Hex> {
  const address = privateKeyToAccount(generatePrivateKey()).address;
  const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
  await client.request({ method: 'anvil_setCode' as never, params: [address, demoTokenArtifact.deployedBytecode] as never });
  const minter = createWalletClient({ account: localMinterAccount, transport: http(rpcUrl('POLYGON')!) });
  const hash = await minter.writeContract({
    address,
    abi: demoTokenArtifact.abi,
    functionName: 'initialize',
    args: [`${symbol} token`, symbol, decimals, localMinterAccount.address],
    chain: null,
  });
  await client.waitForTransactionReceipt({ hash });
  return address;
}

describe('Tokens tab', () => {
  it("every registry token of the mode's chains is accepted by default; a disabled one is refused by createCharge, then accepted again", async () => {
    const live = await listAcceptedTokens({ ...as(viewer), mode: 'live' });
    expect(live.every((t) => !CHAINS[t.chain].isTestnet && t.enabled)).toBe(true);
    expect(live.some((t) => t.chain === 'POLYGON' && t.symbol === 'USDT')).toBe(true);
    expect((await listAcceptedTokens({ ...as(viewer), mode: 'test' })).every((t) => CHAINS[t.chain].isTestnet)).toBe(true);

    await setTokenEnabled({ ...as(developer), chain: 'POLYGON', address: USDT.address, enabled: false });
    const refused = await appError(charge({ symbol: 'USDT', chain: 'POLYGON', tokenAddress: USDT.address, amount: '1' }));
    expect(refused).toMatchObject({ code: 'unsupported_token', param: 'chargeData.tokenAddress', status: 422 });
    expect(
      (await listAcceptedTokens({ ...as(viewer), mode: 'live' })).find((t) => t.symbol === 'USDT' && t.chain === 'POLYGON')?.enabled,
    ).toBe(false);

    await setTokenEnabled({ ...as(developer), chain: 'POLYGON', address: USDT.address, enabled: true });
    expect((await charge({ symbol: 'USDT', chain: 'POLYGON', tokenAddress: USDT.address, amount: '1' })).charge.tokenSymbol).toBe('USDT');
    await expect(setTokenEnabled({ ...as(viewer), chain: 'POLYGON', address: USDT.address, enabled: false })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('says which networks this server does not serve (no RPC URL): their charges are refused whatever the setting', async () => {
    const live = await listAcceptedTokens({ ...as(viewer), mode: 'live' });
    // The suite serves POLYGON (and its test network) only.
    expect(live.filter((t) => t.chain === 'POLYGON').every((t) => t.isChainServed)).toBe(true);
    expect(live.filter((t) => t.chain !== 'POLYGON').every((t) => !t.isChainServed)).toBe(true);
    expect(live.some((t) => t.chain === 'SOLANA')).toBe(true);
  });

  it('a custom ERC-20 is added by address with symbol and decimals read from the chain, then charged and paid exactly', async () => {
    const gem = await plantToken('GEM', 4);
    const added = await addCustomToken({ ...as(developer), chain: 'POLYGON', address: gem.toLowerCase() });
    expect(added).toMatchObject({ symbol: 'GEM', decimals: 4, isCustom: true, enabled: true });
    const [audit] = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.merchantId, merchant.id), eq(auditLog.action, 'token.add_custom')));
    expect(audit!.data).toMatchObject({ symbol: 'GEM', decimals: 4 });

    expect(await appError(charge({ symbol: 'GEM', chain: 'POLYGON', tokenAddress: gem, amount: '1.23456' }))).toMatchObject({
      code: 'invalid_amount',
    });
    const { chargeId, charge: row, deposit } = await charge({ symbol: 'GEM', chain: 'POLYGON', tokenAddress: gem, amount: '1.2345' });
    expect(row).toMatchObject({ tokenSymbol: 'GEM', tokenDecimals: 4, totalBaseUnits: 12345n });

    // Another merchant has not added it.
    const other = await newMerchant();
    const elsewhere = await appError(
      createTestCharge({
        apiKey: other.liveKey!,
        body: { chargeData: { symbol: 'GEM', chain: 'POLYGON', tokenAddress: gem, amount: '1' } },
      }),
    );
    expect(elsewhere.code).toBe('unsupported_token');

    // Paid in GEM, the watcher (which follows the charge's token contract) settles it.
    const minter = createWalletClient({ account: localMinterAccount, transport: http(rpcUrl('POLYGON')!) });
    const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
    await client.waitForTransactionReceipt({
      hash: await minter.writeContract({
        address: gem,
        abi: demoTokenArtifact.abi,
        functionName: 'mint',
        args: [deposit.address, 12345n],
        chain: null,
      }),
    });
    let status = 'pending';
    for (let i = 0; i < 20 && status !== 'succeeded'; i++) {
      await pollChain('POLYGON');
      status = (await getDb().select().from(charges).where(eq(charges.id, chargeId)))[0]!.status;
    }
    expect(status).toBe('succeeded');
    expect(await client.readContract({ address: gem, abi: erc20Abi, functionName: 'balanceOf', args: [deposit.address as Hex] })).toBe(
      12345n,
    );
  });

  it('refuses what is not a token, registry tokens, test networks and viewers, storing nothing', async () => {
    const notAToken = privateKeyToAccount(generatePrivateKey()).address;
    await expect(addCustomToken({ ...as(developer), chain: 'POLYGON', address: notAToken })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'address',
    });
    await expect(addCustomToken({ ...as(developer), chain: 'POLYGON', address: '0x123' })).rejects.toMatchObject({
      code: 'invalid_address',
    });
    await expect(addCustomToken({ ...as(developer), chain: 'POLYGON', address: USDT.address })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    await expect(addCustomToken({ ...as(developer), chain: 'POLYGON_AMOY', address: notAToken })).rejects.toMatchObject({ param: 'chain' });
    const gem = await plantToken('RUBY', 18);
    await expect(addCustomToken({ ...as(viewer), chain: 'POLYGON', address: gem })).rejects.toMatchObject({ code: 'forbidden' });
    expect((await listAcceptedTokens({ ...as(viewer), mode: 'live' })).filter((t) => t.isCustom)).toEqual([]);
  });
});
