import { and, eq } from 'drizzle-orm';
import { createWalletClient, erc20Abi, http, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import demoTokenArtifact from '@/lib/chains/artifacts/DemoToken.json' with { type: 'json' };
import { auditLog, merchantMembers, merchantTokens, outboundTransfers, wallets } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { fundLocalWallet, localMinterAccount } from '@/scripts/stack/local-chain';
import { readOutbox } from '@/lib/notifications/outbox';
import { enrolTotp, newUser, userRow } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { withdrawFromMerchantWallet } from './withdraw';
import { USDC, client, usdcOf } from '@/test/polygon-usdc';

const PIN = '739104';
let merchantId: string;
let owner: string;
let admin: string;
let walletAddress: Hex;

beforeEach(async () => {
  merchantId = (await newMerchant()).id;
  owner = await newUser({ pin: PIN });
  // A verified merchant's owner withdraws only with two-factor sign-in on.
  await enrolTotp(owner);
  admin = await newUser({ pin: PIN });
  await getDb()
    .insert(merchantMembers)
    .values([
      { merchantId, userId: owner, role: 'owner' },
      { merchantId, userId: admin, role: 'admin' },
    ]);
  const created = await ensureMerchantWallets(getDb(), merchantId);
  walletAddress = created.find((w) => w.family === 'evm')!.address as Hex;
  await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: walletAddress });
  // Tokens but no native coin: the gas tank pays the fee.
  await client().request({ method: 'anvil_setBalance' as never, params: [walletAddress, '0x0'] as never });
});

const withdraw = (overrides: Partial<Parameters<typeof withdrawFromMerchantWallet>[0]> = {}) =>
  withdrawFromMerchantWallet({
    userId: owner,
    merchantId,
    mode: 'live',
    chain: 'POLYGON',
    tokenAddress: USDC.address,
    amount: '12.345678',
    toAddress: privateKeyToAccount(generatePrivateKey()).address,
    pin: PIN,
    ...overrides,
  });

describe('withdrawals from the merchant wallet', () => {
  it('an owner withdraws an exact amount with their PIN; the gas tank covers the fee; recorded and audited', async () => {
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const before = await usdcOf(walletAddress);
    const { txHash, transferId } = await withdraw({ toAddress: destination.toLowerCase() });
    expect((await client().waitForTransactionReceipt({ hash: txHash as Hex })).status).toBe('success');
    expect(await usdcOf(destination)).toBe(parseUnits('12.345678', 6));
    expect(before - (await usdcOf(walletAddress))).toBe(parseUnits('12.345678', 6));
    const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
    expect(row).toMatchObject({ purpose: 'withdrawal', fromAddress: walletAddress, toAddress: destination, chargeId: null });
    const [audit] = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.merchantId, merchantId), eq(auditLog.action, 'funds.withdraw')));
    expect(audit!.data).toMatchObject({ amount: '12.345678', token: 'USDC', toAddress: destination, txHash });
  });

  it('every owner is e-mailed about a withdrawal, not only the one who made it; admins are not', async () => {
    const coOwner = await newUser();
    await getDb().insert(merchantMembers).values({ merchantId, userId: coOwner, role: 'owner' });
    const destination = privateKeyToAccount(generatePrivateKey()).address;
    await withdraw({ toAddress: destination });
    const mailsAbout = async (userId: string) =>
      readOutbox('email', (await userRow(userId)).email!).filter((mail) => mail.text.includes(destination));
    expect(await mailsAbout(owner)).toHaveLength(1);
    expect(await mailsAbout(coOwner)).toHaveLength(1);
    expect(await mailsAbout(admin)).toHaveLength(0);
  });

  it('refuses admins, wrong PINs, bad amounts and addresses, test networks in live mode, and more than the balance — sending nothing', async () => {
    await expect(withdraw({ userId: admin })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(withdraw({ pin: '000000' })).rejects.toMatchObject({ code: 'pin_incorrect' });
    await expect(withdraw({ amount: '1.1234567' })).rejects.toMatchObject({ code: 'invalid_amount', param: 'amount' });
    await expect(withdraw({ amount: '0' })).rejects.toMatchObject({ code: 'invalid_amount' });
    await expect(withdraw({ toAddress: '0x1234' })).rejects.toMatchObject({ code: 'invalid_address', param: 'toAddress' });
    await expect(withdraw({ chain: 'POLYGON_AMOY' })).rejects.toMatchObject({ code: 'unsupported_chain' });
    await expect(withdraw({ amount: '99999999' })).rejects.toMatchObject({ code: 'insufficient_balance', param: 'amount' });
    const [wallet] = await getDb()
      .select()
      .from(wallets)
      .where(and(eq(wallets.merchantId, merchantId), eq(wallets.family, 'evm')));
    expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.fromAddress, wallet!.address))).toHaveLength(0);
  });

  it("withdraws the merchant's custom token with the same checks; another merchant's custom token is refused", async () => {
    const gem = await plantToken('GEM', 9);
    await getDb()
      .insert(merchantTokens)
      .values({ merchantId, chain: 'POLYGON', address: gem.toLowerCase(), symbol: 'GEM', name: 'GEM token', decimals: 9, isCustom: true });
    const minter = createWalletClient({ account: localMinterAccount, transport: http(rpcUrl('POLYGON')!) });
    await client().waitForTransactionReceipt({
      hash: await minter.writeContract({
        address: gem,
        abi: demoTokenArtifact.abi,
        functionName: 'mint',
        args: [walletAddress, parseUnits('50', 9)],
        chain: null,
      }),
    });
    const gemOf = (address: Hex) => client().readContract({ address: gem, abi: erc20Abi, functionName: 'balanceOf', args: [address] });

    // The same authority checks as any withdrawal.
    await expect(withdraw({ tokenAddress: gem, amount: '1', userId: admin })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(withdraw({ tokenAddress: gem, amount: '1', pin: '000000' })).rejects.toMatchObject({ code: 'pin_incorrect' });
    await expect(withdraw({ tokenAddress: gem, amount: '1.0000000001' })).rejects.toMatchObject({ code: 'invalid_amount' });

    const destination = privateKeyToAccount(generatePrivateKey()).address;
    const { txHash, transferId } = await withdraw({ tokenAddress: gem, amount: '12.5', toAddress: destination });
    expect((await client().waitForTransactionReceipt({ hash: txHash as Hex })).status).toBe('success');
    expect(await gemOf(destination)).toBe(parseUnits('12.5', 9));
    const [row] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.id, transferId));
    expect(row).toMatchObject({ purpose: 'withdrawal', tokenAddress: gem, amountBaseUnits: parseUnits('12.5', 9) });

    // Someone else's custom token (not this merchant's) is not withdrawable from here.
    const other = await newMerchant();
    const foreign = await plantToken('FOE', 18);
    await getDb().insert(merchantTokens).values({
      merchantId: other.id,
      chain: 'POLYGON',
      address: foreign.toLowerCase(),
      symbol: 'FOE',
      name: 'FOE token',
      decimals: 18,
      isCustom: true,
    });
    await expect(withdraw({ tokenAddress: foreign, amount: '1' })).rejects.toMatchObject({
      code: 'unsupported_token',
      param: 'tokenAddress',
    });
  });
});

/** A real ERC-20 (the demo token contract) planted at a fresh address on the local Polygon node. */
async function plantToken(symbol: string, decimals: number): Promise<Hex> {
  const address = privateKeyToAccount(generatePrivateKey()).address;
  await client().request({ method: 'anvil_setCode' as never, params: [address, demoTokenArtifact.deployedBytecode] as never });
  const minter = createWalletClient({ account: localMinterAccount, transport: http(rpcUrl('POLYGON')!) });
  const hash = await minter.writeContract({
    address,
    abi: demoTokenArtifact.abi,
    functionName: 'initialize',
    args: [`${symbol} token`, symbol, decimals, localMinterAccount.address],
    chain: null,
  });
  await client().waitForTransactionReceipt({ hash });
  return address;
}
