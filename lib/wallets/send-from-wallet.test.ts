import { and, eq } from 'drizzle-orm';
import { parseEther, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { outboundTransfers, walletSends } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { newId } from '@/lib/ids';
import { appError, newUser, userRow } from '@/test/accounts';
import { createWalletsForUser } from '@/lib/keyring/create-wallets';
import { newSendId, previewSend } from './preview-send';
import { getWalletSend } from './get-wallet-send';
import { sendFromWallet } from './send-from-wallet';
import { USDC, client, usdcOf } from '@/test/polygon-usdc';

const PIN = '739104';
const polOf = (address: string) => client().getBalance({ address: address as Hex });
const stranger = () => privateKeyToAccount(generatePrivateKey()).address;

let userId: string;
let wallet: Hex;
let solanaWallet: string;

beforeEach(async () => {
  userId = await newUser({ pin: PIN });
  const created = await createWalletsForUser(getDb(), userId);
  wallet = created.find((w) => w.family === 'evm')!.address as Hex;
  solanaWallet = created.find((w) => w.family === 'solana')!.address;
  // 10,000 POL and 1,000,000 of each demo token.
  await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: wallet });
});

const request = (overrides: Partial<Parameters<typeof sendFromWallet>[0]> = {}) => ({
  userId,
  sendId: newSendId(),
  chain: 'POLYGON',
  tokenAddress: USDC.address,
  toAddress: stranger(),
  amount: '12.345678',
  pin: PIN,
  ...overrides,
});

const sentFrom = (address: string) => getDb().select().from(outboundTransfers).where(eq(outboundTransfers.fromAddress, address));

describe('sending from the wallet', () => {
  it('shows the fee before confirming, without writing anything or asking for the PIN', async () => {
    const preview = await previewSend(request());
    expect(preview).toMatchObject({
      chain: 'POLYGON',
      symbol: 'USDC',
      amount: '12.345678',
      available: '1000000',
      fee: { symbol: 'POL', paidBy: 'wallet' },
    });
    expect(preview.sendId).toMatch(/^wsend_/);
    expect(BigInt(parseEther(preview.fee.maxAmount))).toBeGreaterThan(0n);
    expect(await sentFrom(wallet)).toHaveLength(0);
    expect((await userRow(userId)).pinFailedAttempts).toBe(0);
  });

  it('with the right PIN: recorded, then broadcast; the recipient gets exactly the amount, the wallet pays the fee', async () => {
    const recipient = stranger();
    const [usdcBefore, polBefore] = await Promise.all([usdcOf(wallet), polOf(wallet)]);
    const input = request({ toAddress: recipient.toLowerCase() });
    const result = await sendFromWallet(input);

    const [row] = await sentFrom(wallet);
    expect(row).toMatchObject({
      id: result.transferId,
      purpose: 'wallet_send',
      chargeId: null,
      toAddress: recipient,
      amountBaseUnits: parseUnits('12.345678', 6),
      txHash: result.txHash,
    });
    expect(row!.status).toMatch(/broadcast|confirmed/);
    const receipt = await client().waitForTransactionReceipt({ hash: result.txHash as Hex });
    expect(receipt.status).toBe('success');
    expect(await usdcOf(recipient)).toBe(parseUnits('12.345678', 6));
    expect(usdcBefore - (await usdcOf(wallet))).toBe(parseUnits('12.345678', 6));
    expect(polBefore - (await polOf(wallet))).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
    // No gas tank top-up: the wallet had POL.
    expect(
      await getDb()
        .select()
        .from(outboundTransfers)
        .where(and(eq(outboundTransfers.toAddress, wallet), eq(outboundTransfers.purpose, 'gas_topup'))),
    ).toHaveLength(0);

    // Confirming again (double click, retry) returns the same transfer and sends nothing more.
    expect(await sendFromWallet(input)).toEqual(result);
    expect(await sentFrom(wallet)).toHaveLength(1);
    expect(await usdcOf(recipient)).toBe(parseUnits('12.345678', 6));

    const view = await getWalletSend({ userId, sendId: input.sendId });
    expect(view).toMatchObject({ status: 'completed', amount: '12.345678', symbol: 'USDC', toAddress: recipient, txHash: result.txHash });
    // Another user cannot see it.
    expect(await getWalletSend({ userId: await newUser(), sendId: input.sendId })).toBeUndefined();
  });

  it('a wrong PIN changes nothing but the attempt count, and says how many tries are left', async () => {
    const recipient = stranger();
    const before = await usdcOf(wallet);
    const error = await appError(sendFromWallet(request({ toAddress: recipient, pin: '000000' })));
    expect(error).toMatchObject({ code: 'pin_incorrect', param: 'pin' });
    expect(error.message).toMatch(/4 tries left/);
    expect(await sentFrom(wallet)).toHaveLength(0);
    expect(await getDb().select().from(walletSends).where(eq(walletSends.userId, userId))).toHaveLength(0);
    expect(await usdcOf(wallet)).toBe(before);
    expect(await usdcOf(recipient)).toBe(0n);
  });

  it('a locked PIN is refused with the wait, and nothing is sent', async () => {
    for (let i = 0; i < 5; i++) await appError(sendFromWallet(request({ pin: '000000' })));
    expect(await appError(sendFromWallet(request()))).toMatchObject({ code: 'pin_locked', message: expect.stringMatching(/Try again in/) });
    expect(await sentFrom(wallet)).toHaveLength(0);
  });

  it('refuses more than the balance, and a token send the wallet cannot pay the fee for, sending nothing', async () => {
    expect(await appError(sendFromWallet(request({ amount: '1000000.000001' })))).toMatchObject({
      code: 'insufficient_balance',
      param: 'amount',
    });
    expect(await appError(previewSend(request({ amount: '1000000.000001' })))).toMatchObject({ code: 'insufficient_balance' });
    // Native: the amount plus the fee must fit.
    expect(
      await appError(sendFromWallet(request({ tokenAddress: '0x0000000000000000000000000000000000000000', amount: '10000' }))),
    ).toMatchObject({
      code: 'insufficient_balance',
      message: expect.stringMatching(/network fee/),
    });
    await client().request({ method: 'anvil_setBalance' as never, params: [wallet, '0x0'] as never });
    expect(await appError(sendFromWallet(request()))).toMatchObject({
      code: 'insufficient_balance',
      message: expect.stringMatching(/fee .* paid from your POL/),
    });
    expect(await sentFrom(wallet)).toHaveLength(0);
  });

  it('two sends at once cannot both spend the same balance', async () => {
    const results = await Promise.allSettled([
      sendFromWallet(request({ amount: '600000' })),
      sendFromWallet(request({ amount: '600000' })),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'insufficient_balance' });
    expect(await sentFrom(wallet)).toHaveLength(1);
  });

  it('counts a send recorded but not broadcast yet (e.g. before a crash) as already spent', async () => {
    await getDb()
      .insert(outboundTransfers)
      .values({
        id: newId('outboundTransfer'),
        purpose: 'wallet_send',
        chain: 'POLYGON',
        fromAddress: wallet,
        toAddress: stranger(),
        tokenAddress: USDC.address,
        amountBaseUnits: parseUnits('600000', 6),
        nonce: 0,
        txHash: `0x${'ab'.repeat(32)}${newId('outboundTransfer').slice(-4)}`.slice(0, 66),
        rawTransaction: '0x',
        status: 'signed',
      });
    expect(await appError(previewSend(request({ amount: '400000.000001' })))).toMatchObject({
      code: 'insufficient_balance',
      message: expect.stringMatching(/holds 400000 USDC/),
    });
    expect((await previewSend(request({ amount: '400000' }))).available).toBe('400000');
  });

  it.each([
    [{ toAddress: '' }, 'invalid_address', /Enter the address/],
    [{ toAddress: 'not an address' }, 'invalid_address', /0x followed by 40 hexadecimal/],
    [{ toAddress: '0x90F79bf6EB2c4f870365E785982E1f101E93b906'.replace('F7', 'f7') }, 'invalid_address', /checksum/],
    [{ toAddress: '0x0000000000000000000000000000000000000000' }, 'invalid_address', /zero address/],
    [{ toAddress: USDC.address }, 'invalid_address', /contract itself/],
    [{ amount: '1.1234567' }, 'invalid_amount', /at most 6 decimal places/],
    [{ amount: '0' }, 'invalid_amount', /above zero/],
    [{ amount: '1,5' }, 'invalid_amount', /like 12.5/],
    [{ chain: 'SOLANA', tokenAddress: 'So11111111111111111111111111111111111111112' }, 'invalid_address', /That is an EVM address/],
    [{ chain: 'ETHEREUM' }, 'unsupported_chain', /Choose a network/],
    [{ tokenAddress: '0x1111111111111111111111111111111111111111' }, 'unsupported_token', /no such token/],
  ])('refuses %o before asking the PIN (%s)', async (overrides, code, message) => {
    const error = await appError(sendFromWallet(request(overrides)));
    expect(error).toMatchObject({ code, message: expect.stringMatching(message) });
    expect((await userRow(userId)).pinFailedAttempts).toBe(0);
    expect(await sentFrom(wallet)).toHaveLength(0);
  });

  it("refuses a Solana address on an EVM chain, and the wallet's own address, with clear messages", async () => {
    expect(await appError(previewSend(request({ toAddress: solanaWallet })))).toMatchObject({
      code: 'invalid_address',
      message: expect.stringMatching(/That is a Solana address/),
    });
    expect(await appError(previewSend(request({ toAddress: wallet })))).toMatchObject({
      code: 'invalid_address',
      message: expect.stringMatching(/own address/),
    });
  });
});
