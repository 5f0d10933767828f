/**
 * In-app pay through the API an app calls with its access token, against real PostgreSQL and the
 * local Polygon node: tokens pay only their merchant's charges, need the `payments` scope, never pay
 * without the PIN (or a spending allowance the user approved with it), and the confirmed payment goes through
 * the checkout's exactly-once path.
 */
import { eq } from 'drizzle-orm';
import type { Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { setPin } from '@/lib/accounts/set-pin';
import { createUser } from '@/lib/accounts/create-user';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { merchantMembers, outboundTransfers } from '@/lib/db/schema';
import { rpcUrl } from '@/lib/env';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { listWallets } from '@/lib/wallets/list-wallets';
import { uniqueEmail } from '@/test/accounts';
import { callRoute, createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { GET as balancesRoute } from '@/app/api/oauth/balances/route';
import { GET as getRequestRoute } from '@/app/api/oauth/payment-requests/[requestId]/route';
import { POST as createRequestRoute } from '@/app/api/oauth/payment-requests/route';
import { approveSpendingAllowance } from '@/lib/allowances/approve-spending-allowance';
import { registerOAuthApp } from './register-oauth-app';
import { confirmPaymentRequest, declinePaymentRequest, findPaymentRequestByCode, normaliseUserCode } from './payment-requests';
import { getProvider } from './provider';

const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
const PIN = '583920';

let merchant: TestMerchant;
let otherMerchant: TestMerchant;
let clientId: string;

async function ownerOf(merchantId: string): Promise<string> {
  const { userId } = await consumer();
  await getDb().insert(merchantMembers).values({ merchantId, userId, role: 'owner' });
  return userId;
}

async function consumer(options: { funded?: boolean } = {}): Promise<{ userId: string; address: Hex }> {
  const email = uniqueEmail('player');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  await setPin({ userId: user.id, pin: PIN, confirm: PIN });
  const evm = (await listWallets(user.id)).find((w) => w.family === 'evm')!;
  if (options.funded) await fundLocalWallet({ chain: 'POLYGON', url: rpcUrl('POLYGON')!, address: evm.address as Hex });
  return { userId: user.id, address: evm.address as Hex };
}

/** An access token exactly as the provider issues it after consent (stored in oidc_payloads). */
async function accessToken(input: { userId: string; clientId: string; scope: string }): Promise<string> {
  const provider = await getProvider();
  const grant = new provider.Grant({ accountId: input.userId, clientId: input.clientId });
  grant.addOIDCScope(input.scope);
  const grantId = await grant.save();
  const client = await provider.Client.find(input.clientId);
  const token = new provider.AccessToken({
    accountId: input.userId,
    client: client!,
    grantId,
    scope: input.scope,
    gty: 'authorization_code',
  });
  return token.save();
}

async function usdcCharge(of: TestMerchant, amount = '1.25'): Promise<string> {
  const { chargeId } = await createTestCharge({
    apiKey: of.liveKey,
    body: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, amount } },
  });
  return chargeId;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  merchant = await newMerchant({ name: 'Pixel Quest' });
  otherMerchant = await newMerchant({ name: 'Other Studio' });
  ({ clientId } = await registerOAuthApp({
    userId: await ownerOf(merchant.id),
    merchantId: merchant.id,
    app: { name: 'Pixel Quest', redirectUris: ['https://pixelquest.example/callback'], clientType: 'public' },
  }));
});

describe('the in-app pay API', () => {
  it('refuses a request without a token, with an unknown token, and without the payments scope', async () => {
    const player = await consumer();
    const chargeId = await usdcCharge(merchant);
    const none = await callRoute(createRequestRoute, { body: { chargeId } });
    expect([none.status, none.json.error?.code]).toEqual([401, 'invalid_access_token']);
    const unknown = await callRoute(createRequestRoute, { headers: bearer('not-a-token'), body: { chargeId } });
    expect([unknown.status, unknown.json.error?.code]).toEqual([401, 'invalid_access_token']);
    const readOnly = await accessToken({ userId: player.userId, clientId, scope: 'openid wallet:read' });
    const noScope = await callRoute(createRequestRoute, { headers: bearer(readOnly), body: { chargeId } });
    expect([noScope.status, noScope.json.error?.code]).toEqual([403, 'insufficient_scope']);
    expect(noScope.headers.get('www-authenticate')).toContain('insufficient_scope');
    // wallet:read reads the balances.
    const balances = await callRoute(balancesRoute, { method: 'GET', headers: bearer(readOnly) });
    expect(balances.status).toBe(200);
    expect(balances.json.data.wallets.map((w: { address: string }) => w.address)).toContain(player.address);
  });

  it('a body that is not JSON, too large, or of another type is refused as the document declares', async () => {
    const player = await consumer();
    const token = await accessToken({ userId: player.userId, clientId, scope: 'openid payments' });
    // callRoute holds each answer to the OpenAPI document: an undeclared 413 or 415 fails there.
    const huge = await callRoute(createRequestRoute, { headers: bearer(token), body: JSON.stringify({ chargeId: 'x'.repeat(2_000_000) }) });
    expect([huge.status, huge.json.error?.code]).toEqual([413, 'payload_too_large']);
    const form = await callRoute(createRequestRoute, { headers: { ...bearer(token), 'content-type': 'text/plain' }, body: 'chargeId=x' });
    expect([form.status, form.json.error?.code]).toEqual([415, 'unsupported_media_type']);
    const broken = await callRoute(createRequestRoute, { headers: bearer(token), body: '{"chargeId":' });
    expect([broken.status, broken.json.error?.code]).toEqual([400, 'invalid_json']);
  });

  it("never pays another merchant's charge: it looks like no charge at all", async () => {
    const player = await consumer();
    const token = await accessToken({ userId: player.userId, clientId, scope: 'openid payments' });
    const foreign = await usdcCharge(otherMerchant);
    const res = await callRoute(createRequestRoute, { headers: bearer(token), body: { chargeId: foreign } });
    expect([res.status, res.json.error?.code, res.json.error?.param]).toEqual([404, 'not_found', 'chargeId']);
  });

  it('pays only with the PIN, typed by the token’s own user, exactly once', async () => {
    const player = await consumer({ funded: true });
    const token = await accessToken({ userId: player.userId, clientId, scope: 'openid payments' });
    const chargeId = await usdcCharge(merchant, '1.25');

    const created = await callRoute(createRequestRoute, { headers: bearer(token), body: { chargeId } });
    expect(created.status).toBe(201);
    const request = created.json.data;
    expect(request).toMatchObject({
      chargeId,
      status: 'pending',
      chargeStatus: 'pending',
      verificationUri: 'http://localhost:3999/oauth/pay',
    });
    expect(request.verificationUriComplete).toBe(`http://localhost:3999/oauth/pay?user_code=${request.userCode}`);
    expect(normaliseUserCode(request.userCode.toLowerCase().replace('-', ' '))).toBe(request.userCode);
    // Asking again returns the same pending request.
    const again = await callRoute(createRequestRoute, { headers: bearer(token), body: { chargeId } });
    expect(again.json.data.id).toBe(request.id);

    // Another account cannot confirm it, even with its own PIN.
    const stranger = await consumer({ funded: true });
    await expect(confirmPaymentRequest({ requestId: request.id, userId: stranger.userId, pin: PIN })).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect((await findPaymentRequestByCode({ userCode: request.userCode, userId: stranger.userId })).isForThisUser).toBe(false);
    // A wrong PIN pays nothing and leaves the request pending.
    await expect(confirmPaymentRequest({ requestId: request.id, userId: player.userId, pin: '111111' })).rejects.toMatchObject({
      code: 'pin_incorrect',
    });
    expect((await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId))).length).toBe(0);

    const [first, second] = await Promise.all([
      confirmPaymentRequest({ requestId: request.id, userId: player.userId, pin: PIN }),
      confirmPaymentRequest({ requestId: request.id, userId: player.userId, pin: PIN }),
    ]);
    expect(second.txHash).toBe(first.txHash);
    const transfers = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, chargeId));
    expect(transfers.filter((t) => t.purpose === 'balance_payment')).toHaveLength(1);

    const polled = await callRoute(getRequestRoute, { method: 'GET', headers: bearer(token), params: { requestId: request.id } });
    expect(polled.json.data).toMatchObject({ status: 'confirmed', txHash: first.txHash });
    // Another app's or user's token does not see it.
    const strangerToken = await accessToken({ userId: stranger.userId, clientId, scope: 'openid payments' });
    const hidden = await callRoute(getRequestRoute, { method: 'GET', headers: bearer(strangerToken), params: { requestId: request.id } });
    expect(hidden.status).toBe(404);
  });

  it('without the PIN only within a spending allowance for the app’s merchant (one tap on /oauth/pay), else step_up_required', async () => {
    const player = await consumer({ funded: true });
    const token = await accessToken({ userId: player.userId, clientId, scope: 'openid payments' });
    const request = async (amount: string) =>
      (await callRoute(createRequestRoute, { headers: bearer(token), body: { chargeId: await usdcCharge(merchant, amount) } })).json.data;
    const first = await request('1');
    await expect(confirmPaymentRequest({ requestId: first.id, userId: player.userId })).rejects.toMatchObject({ code: 'step_up_required' });
    await approveSpendingAllowance({
      userId: player.userId,
      chargeId: first.chargeId,
      pin: PIN,
      allowance: { amountPerDay: '2', days: '7' },
    });
    const { txHash } = await confirmPaymentRequest({ requestId: first.id, userId: player.userId });
    const [transfer] = await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, first.chargeId));
    expect(transfer).toMatchObject({ txHash, authority: expect.stringMatching(/^payer_allowance:alw_/) });
    // 1 of 2 left: a 1.5 purchase needs the PIN again.
    const second = await request('1.5');
    await expect(confirmPaymentRequest({ requestId: second.id, userId: player.userId })).rejects.toMatchObject({
      code: 'step_up_required',
    });
    expect(await getDb().select().from(outboundTransfers).where(eq(outboundTransfers.chargeId, second.chargeId))).toHaveLength(0);
  });

  it('a declined request cannot be paid afterwards', async () => {
    const player = await consumer({ funded: true });
    const token = await accessToken({ userId: player.userId, clientId, scope: 'openid payments' });
    const chargeId = await usdcCharge(merchant);
    const { data } = (await callRoute(createRequestRoute, { headers: bearer(token), body: { chargeId } })).json;
    await declinePaymentRequest({ requestId: data.id, userId: player.userId });
    await expect(confirmPaymentRequest({ requestId: data.id, userId: player.userId, pin: PIN })).rejects.toMatchObject({
      code: 'charge_not_payable',
    });
  });
});
