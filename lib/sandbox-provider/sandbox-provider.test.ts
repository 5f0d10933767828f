import { eq } from 'drizzle-orm';
import { createPublicClient, erc20Abi, http, parseEther, parseUnits, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as createSessionRoute } from '@/app/sandbox-provider/api/sessions/route';
import { GET as quoteRoute } from '@/app/sandbox-provider/api/quote/route';
import { CHAINS } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { sandboxProviderSessions } from '@/lib/db/schema/sandbox-provider';
import { rpcUrl } from '@/lib/env';
import { createSandboxAdapter } from '@/lib/onramp/providers/sandbox';
import type { OnrampOrderUpdate } from '@/lib/onramp/providers/types';
import { callRoute } from '@/test/fixtures';
import { TEST_SECRETS } from '@/test/test-secrets';
import { startWebhookReceiver, type WebhookReceiver } from '@/test/webhook-receiver';
import { sandboxProviderAccount } from './account';
import { fulfilSession } from './fulfil-session';
import { answerAuthentication, payWithCard, payWithoutCard } from './pay-with-card';
import { loadPaymentScreen } from './payment-screen';

const USDC = CHAINS.POLYGON.tokens.find((t) => t.symbol === 'USDC')!;
const SECRET = TEST_SECRETS.SANDBOX_PROVIDER_SECRET;
const adapter = createSandboxAdapter({ baseUrl: 'http://localhost:3999', secret: SECRET });
const client = createPublicClient({ transport: http(rpcUrl('POLYGON')!) });
const CARD = { expiry: '12/40', cvc: '123', name: 'Ada Lovelace' };

let receiver: WebhookReceiver;
let receiverStatus: (index: number) => number = () => 200;

beforeAll(async () => {
  receiver = await startWebhookReceiver((index) => receiverStatus(index));
});
afterAll(async () => {
  await receiver.close();
});

function freshWallet(): Hex {
  return privateKeyToAccount(generatePrivateKey()).address;
}

function sessionBody(overrides: Record<string, unknown> = {}) {
  return {
    partnerOrderId: `ord_${Math.random().toString(36).slice(2)}`,
    walletAddress: freshWallet(),
    chain: 'POLYGON',
    tokenSymbol: 'USDC',
    cryptoAmount: '12.345678',
    fiatCurrency: 'USD',
    fiatAmount: '13.52',
    paymentMethod: 'card',
    country: 'DE',
    redirectUrl: 'https://merchant.example/return',
    ...overrides,
  };
}

async function createSession(overrides: Record<string, unknown> = {}) {
  const body = sessionBody(overrides);
  const res = await callRoute(createSessionRoute, {
    headers: { authorization: `Bearer ${SECRET}` },
    body,
    path: '/sandbox-provider/api/sessions',
  });
  expect(res.status).toBe(201);
  return {
    body,
    sessionId: res.json.data.sessionId as string,
    url: res.json.data.url as string,
    expiresAt: res.json.data.expiresAt as string,
  };
}

async function usdcBalance(address: Hex): Promise<bigint> {
  return client.readContract({ address: USDC.address as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [address] });
}

/** Fulfils the session, returning the webhooks it sent (verified with our adapter, in order). */
async function fulfil(sessionId: string): Promise<OnrampOrderUpdate[]> {
  const before = receiver.received.length;
  await fulfilSession(sessionId, { webhookUrl: receiver.url, retryDelaysMs: [20, 20] });
  const updates: OnrampOrderUpdate[] = [];
  for (const hook of receiver.received.slice(before)) {
    const result = await adapter.verifyWebhook({ headers: hook.headers, rawBody: hook.body, now: new Date() });
    if (!result.ok) throw new Error(`webhook did not verify: ${result.code} ${result.message}`);
    updates.push(result.update);
  }
  return updates;
}

describe('sessions API', () => {
  it('creates a session valid for 30 minutes, with the payment screen URL', async () => {
    const started = Date.now();
    const { sessionId, url, expiresAt } = await createSession();
    expect(sessionId).toMatch(/^sps_[0-9A-Za-z]{22}$/);
    expect(url).toBe(`http://localhost:3999/sandbox-provider/pay/${sessionId}`);
    const lifetime = new Date(expiresAt).getTime() - started;
    expect(lifetime).toBeGreaterThan(29 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(30 * 60_000 + 1_000);
    const screen = await loadPaymentScreen(sessionId);
    expect(screen).toMatchObject({
      state: 'open',
      tokenAmount: '12.345678',
      tokenSymbol: 'USDC',
      chainName: 'Polygon',
      total: '$13.52',
      paymentMethod: 'card',
    });
  });

  it('refuses a wrong or missing key (401) and bad input (400) and stores nothing', async () => {
    const body = sessionBody();
    const wrongKey = await callRoute(createSessionRoute, { headers: { authorization: `Bearer ${SECRET}x` }, body });
    expect(wrongKey.status).toBe(401);
    expect((await callRoute(createSessionRoute, { body })).status).toBe(401);
    const cases: [Record<string, unknown>, string][] = [
      [{ chain: 'ETHEREUM' }, 'chain'],
      [{ walletAddress: '0x123' }, 'walletAddress'],
      [{ cryptoAmount: '1.1234567' }, 'cryptoAmount'],
      [{ cryptoAmount: '-5' }, 'cryptoAmount'],
      [{ tokenSymbol: 'SOL', chain: 'SOLANA' }, 'tokenSymbol'],
      [{ fiatCurrency: 'JPY' }, 'fiatCurrency'],
      [{ paymentMethod: 'cash' }, 'paymentMethod'],
      [{ redirectUrl: 'javascript:alert(1)' }, 'redirectUrl'],
      [{ sucessUrl: 'https://x.example' }, 'sucessUrl'],
    ];
    for (const [override, param] of cases) {
      const res = await callRoute(createSessionRoute, { headers: { authorization: `Bearer ${SECRET}` }, body: { ...body, ...override } });
      expect(res.status, JSON.stringify(override)).toBe(400);
      expect(res.json.error?.param).toBe(param);
    }
    expect(
      await getDb().select().from(sandboxProviderSessions).where(eq(sandboxProviderSessions.partnerOrderId, body.partnerOrderId)),
    ).toEqual([]);
  });

  it('a retry for the same order gets its open session back; other details or a paid session are a conflict', async () => {
    const first = await createSession();
    const retry = await callRoute(createSessionRoute, { headers: { authorization: `Bearer ${SECRET}` }, body: first.body });
    expect(retry.status).toBe(200);
    expect(retry.json.data.sessionId).toBe(first.sessionId);
    const changed = await callRoute(createSessionRoute, {
      headers: { authorization: `Bearer ${SECRET}` },
      body: { ...first.body, cryptoAmount: '20' },
    });
    expect(changed.status).toBe(409);

    await payWithCard({ sessionId: first.sessionId, card: { ...CARD, number: '4000 0000 0000 0002' } });
    // A declined attempt does not block a new one.
    const again = await callRoute(createSessionRoute, { headers: { authorization: `Bearer ${SECRET}` }, body: first.body });
    expect(again.status).toBe(201);
    expect(again.json.data.sessionId).not.toBe(first.sessionId);
  });

  it('quotes through the API route with exact strings', async () => {
    const res = await callRoute(quoteRoute, {
      path: '/sandbox-provider/api/quote?chain=POLYGON&tokenSymbol=USDC&cryptoAmount=100&fiatCurrency=USD&paymentMethod=card',
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      cryptoAmount: '100',
      fiatCurrency: 'USD',
      rate: '1.00',
      providerFee: '1.50',
      networkFee: '0.01',
      total: '101.51',
    });
    const both = await callRoute(quoteRoute, {
      path: '/sandbox-provider/api/quote?chain=POLYGON&tokenSymbol=USDC&cryptoAmount=1&fiatAmount=1&fiatCurrency=USD',
    });
    expect(both.status).toBe(400);
  });
});

describe('paying on the provider screen', () => {
  it('4242…: PROCESSING then COMPLETED, signed; the wallet receives exactly the amount from the provider’s account', async () => {
    const { sessionId, body } = await createSession();
    const wallet = body.walletAddress as Hex;
    const treasuryBefore = await usdcBalance(sandboxProviderAccount.address);

    expect(await payWithCard({ sessionId, card: { ...CARD, number: '4242 4242 4242 4242' } })).toEqual({ status: 'paid' });
    const updates = await fulfil(sessionId);

    expect(updates.map((u) => u.status)).toEqual(['pending', 'completed']);
    expect(updates.map((u) => u.providerStatus)).toEqual(['PROCESSING', 'COMPLETED']);
    const completed = updates[1]!;
    expect(completed).toMatchObject({
      providerOrderId: sessionId,
      externalOrderId: body.partnerOrderId,
      cryptoAmount: '12.345678',
      walletAddress: wallet,
      chain: 'POLYGON',
      tokenSymbol: 'USDC',
    });
    expect(await usdcBalance(wallet)).toBe(parseUnits('12.345678', 6));
    expect(treasuryBefore - (await usdcBalance(sandboxProviderAccount.address))).toBe(parseUnits('12.345678', 6));
    const receipt = await client.getTransactionReceipt({ hash: completed.txHash as Hex });
    expect(receipt.from.toLowerCase()).toBe(sandboxProviderAccount.address.toLowerCase());

    const [row] = await getDb().select().from(sandboxProviderSessions).where(eq(sandboxProviderSessions.id, sessionId));
    expect(row).toMatchObject({ status: 'completed', paidWith: 'card', cardLast4: '4242', txHash: completed.txHash });
    // Fulfilling again (a second after() run) delivers nothing more.
    expect(await fulfil(sessionId)).toEqual([]);
    expect(await usdcBalance(wallet)).toBe(parseUnits('12.345678', 6));
  });

  it('0002…: declined → FAILED card_declined, no transfer; the session takes no further payment', async () => {
    const { sessionId, body } = await createSession();
    expect(await payWithCard({ sessionId, card: { ...CARD, number: '4000000000000002' } })).toEqual({
      status: 'failed',
      reason: 'card_declined',
    });
    const updates = await fulfil(sessionId);
    expect(updates).toHaveLength(1);
    expect(updates[0]).toMatchObject({ status: 'failed', providerStatus: 'FAILED', failureReason: 'card_declined' });
    expect(updates[0]!.txHash).toBeUndefined();
    expect(await usdcBalance(body.walletAddress as Hex)).toBe(0n);
    await expect(payWithCard({ sessionId, card: { ...CARD, number: '4242424242424242' } })).rejects.toMatchObject({
      code: 'session_finished',
    });
    expect((await loadPaymentScreen(sessionId))?.failureMessage).toMatch(/declined/);
  });

  it('3-D Secure completed: authentication first, then delivery', async () => {
    const { sessionId, body } = await createSession();
    expect(await payWithCard({ sessionId, card: { ...CARD, number: '4000 0027 6000 3184' } })).toEqual({
      status: 'authentication_required',
    });
    // Nothing is announced while the buyer authenticates.
    expect(await fulfil(sessionId)).toEqual([]);
    expect((await loadPaymentScreen(sessionId))?.state).toBe('authenticating');
    expect(await answerAuthentication({ sessionId, passed: true })).toEqual({ status: 'paid' });
    expect((await fulfil(sessionId)).map((u) => u.providerStatus)).toEqual(['PROCESSING', 'COMPLETED']);
    expect(await usdcBalance(body.walletAddress as Hex)).toBe(parseUnits('12.345678', 6));
  });

  it('3-D Secure failed: FAILED authentication_failed, no transfer', async () => {
    const { sessionId, body } = await createSession();
    await payWithCard({ sessionId, card: { ...CARD, number: '4000 0027 6000 3184' } });
    expect(await answerAuthentication({ sessionId, passed: false })).toEqual({ status: 'failed', reason: 'authentication_failed' });
    const updates = await fulfil(sessionId);
    expect(updates).toEqual([expect.objectContaining({ status: 'failed', failureReason: 'authentication_failed' })]);
    expect(await usdcBalance(body.walletAddress as Hex)).toBe(0n);
  });

  it('bank transfer of the native coin: delivered as value, exactly', async () => {
    const { sessionId, body } = await createSession({
      tokenSymbol: 'POL',
      cryptoAmount: '1.5',
      fiatAmount: '1.38',
      paymentMethod: 'bank_transfer',
    });
    expect(await payWithoutCard({ sessionId, method: 'bank_transfer' })).toEqual({ status: 'paid' });
    expect((await fulfil(sessionId)).map((u) => u.status)).toEqual(['pending', 'completed']);
    expect(await client.getBalance({ address: body.walletAddress as Hex })).toBe(parseEther('1.5'));
  });

  it('an invalid card changes nothing; a double submit pays once', async () => {
    const { sessionId } = await createSession();
    expect(await payWithCard({ sessionId, card: { ...CARD, number: '4242 4242 4242 4241' } })).toMatchObject({
      status: 'invalid',
      fieldErrors: { number: expect.any(String) },
    });
    expect((await loadPaymentScreen(sessionId))?.state).toBe('open');
    const results = await Promise.allSettled([
      payWithCard({ sessionId, card: { ...CARD, number: '4242 4242 4242 4242' } }),
      payWithCard({ sessionId, card: { ...CARD, number: '4242 4242 4242 4242' } }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'session_finished' } });
  });

  it('an expired session takes no payment and says so', async () => {
    const { sessionId } = await createSession();
    const later = new Date(Date.now() + 31 * 60_000);
    await expect(payWithCard({ sessionId, card: { ...CARD, number: '4242424242424242' }, now: later })).rejects.toMatchObject({
      code: 'session_expired',
    });
    expect((await loadPaymentScreen(sessionId, later))?.state).toBe('expired');
  });

  it('a webhook that gets no 2xx is retried with the same event id, signed again', async () => {
    const { sessionId } = await createSession();
    await payWithCard({ sessionId, card: { ...CARD, number: '4000000000000002' } });
    const start = receiver.received.length;
    receiverStatus = (index) => (index === start ? 503 : 200);
    try {
      const updates = await fulfil(sessionId);
      expect(updates).toHaveLength(2);
      const [first, second] = receiver.received.slice(start).map((hook) => JSON.parse(hook.body) as { id: string });
      expect(second!.id).toBe(first!.id);
    } finally {
      receiverStatus = () => 200;
    }
  });

  it('a chain without an RPC fails the session with a reason after payment', async () => {
    const { sessionId } = await createSession({ chain: 'BSC', tokenSymbol: 'USDT', cryptoAmount: '5', fiatAmount: '6.10' });
    await payWithCard({ sessionId, card: { ...CARD, number: '4242424242424242' } });
    const updates = await fulfil(sessionId);
    expect(updates.map((u) => [u.status, u.failureReason])).toEqual([
      ['pending', undefined],
      ['failed', 'network_unavailable'],
    ]);
  });
});
