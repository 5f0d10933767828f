/**
 * Refunds whose payer is not the sender, against real PostgreSQL and the local Polygon node: claim links
 * (a card payment delivered by an on-ramp provider, several senders), claimed exactly once, expired back
 * to refundable (in the claim's lock order), never in a webhook; and the dashboard's owner-approved refund to an address that did not
 * pay (N2).
 */
import { and, eq } from 'drizzle-orm';
import { parseUnits, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GET, POST } from '@/app/api/charges/[chargeId]/refunds/route';
import { createUser } from '@/lib/accounts/create-user';
import { getDb } from '@/lib/db/client';
import { charges, merchantMembers, onrampOrders, outboundTransfers, refunds, webhookEvents } from '@/lib/db/schema';
import { readOutbox } from '@/lib/notifications/outbox';
import { payChargeWithFiat } from '@/lib/onramp/pay-charge-with-fiat';
import { reconcileDueTransfers } from '@/lib/jobs/transfer-outcome-hooks';
import { listWallets } from '@/lib/wallets/list-wallets';
import { enrolTotp, newUser, uniqueEmail } from '@/test/accounts';
import { callRoute, createTestCharge, newMerchant, type TestMerchant } from '@/test/fixtures';
import { stubSandboxProvider } from '@/test/sandbox-provider-stub';
import { claimRefund, findRefundClaim } from './claim-refund';
import { consumeRefundClaimLimit } from './consume-refund-claim-limit';
import { newRefundRequestId } from './create-refund';
import { expireRefundClaims } from './expire-refund-claims';
import { refundFromDashboard } from './refund-from-dashboard';
import { USDC, sendUsdcFromOutside, settled, usdcOf } from '@/test/polygon-usdc';

const PIN = '583920';
let merchant: TestMerchant;

beforeAll(async () => {
  merchant = await newMerchant({ verified: true });
});
beforeEach(() => {
  stubSandboxProvider();
});
afterEach(() => vi.restoreAllMocks());

async function createCharge(amount: string): Promise<{ chargeId: string; deposit: Address }> {
  const { chargeId, deposit } = await createTestCharge({
    apiKey: merchant.liveKey!,
    body: { chargeData: { symbol: 'USDC', chain: 'POLYGON', tokenAddress: USDC.address, amount } },
  });
  return { chargeId, deposit: deposit.address as Address };
}

async function untilFinal(refundId: string): Promise<string> {
  for (let i = 0; i < 20; i++) {
    await reconcileDueTransfers({ ignoreSchedule: true });
    const [row] = await getDb()
      .select({ status: outboundTransfers.status })
      .from(refunds)
      .innerJoin(outboundTransfers, eq(outboundTransfers.id, refunds.transferId))
      .where(eq(refunds.id, refundId));
    if (row?.status === 'confirmed' || row?.status === 'failed') return row.status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return 'timeout';
}

const refund = (chargeId: string, body: Record<string, unknown> = {}) =>
  callRoute(POST, { apiKey: merchant.liveKey!, params: { chargeId }, body });
const refundable = async (chargeId: string) =>
  (await callRoute(GET, { apiKey: merchant.liveKey!, params: { chargeId } })).json.data.refundable.amount as string;
const eventsOf = (chargeId: string, type: string) =>
  getDb()
    .select()
    .from(webhookEvents)
    .where(and(eq(webhookEvents.chargeId, chargeId), eq(webhookEvents.type, type)));
const refundTransfers = (chargeId: string) =>
  getDb()
    .select()
    .from(outboundTransfers)
    .where(and(eq(outboundTransfers.chargeId, chargeId), eq(outboundTransfers.purpose, 'refund')));
const tokenOf = (claimUrl: string) => claimUrl.split('/').pop()!;

/** A charge of two senders (neither can be assumed to be "the payer"), settled. */
async function paidByTwo(): Promise<{ chargeId: string; senders: Address[] }> {
  const { chargeId, deposit } = await createCharge('1.2');
  const first = await sendUsdcFromOutside(deposit, '0.6');
  const second = await sendUsdcFromOutside(deposit, '0.6');
  await settled(chargeId);
  return { chargeId, senders: [first.sender, second.sender] };
}

describe('refund claim links', () => {
  it('a card payment delivered by an on-ramp provider: a claim link, e-mailed to the buyer, reserved, never in a webhook; claimed once when submitted twice', async () => {
    const email = uniqueEmail('claim');
    const buyer = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
    const { chargeId, deposit } = await createCharge('25');
    const placed = await payChargeWithFiat({ chargeId, providerId: 'moonpay', paymentMethod: 'card', country: 'US', userId: buyer.id });
    // The provider delivers from its own hot wallet: that sender is not the buyer.
    const delivery = await sendUsdcFromOutside(deposit, '25');
    await getDb()
      .update(onrampOrders)
      .set({ status: 'completed', deliveryTxHash: delivery.hash, deliveredBaseUnits: parseUnits('25', 6) })
      .where(eq(onrampOrders.id, placed.orderId));
    await settled(chargeId);

    // The provider's address is not the payer: a key cannot send the refund there.
    const toProvider = await refund(chargeId, { toAddress: delivery.sender });
    expect(toProvider.status).toBe(403);
    expect(toProvider.json.error).toMatchObject({ code: 'refund_destination_not_payer' });

    const created = await refund(chargeId, { reason: 'cancelled order' });
    expect(created.status).toBe(200);
    expect(created.json.data).toMatchObject({ status: 'awaiting_claim', amount: '25', destination: null, source: null });
    const claimUrl = created.json.data.claimUrl as string;
    expect(claimUrl).toMatch(/^http:\/\/localhost:3999\/refunds\/claim\/[0-9A-Za-z]{32}$/);
    const token = tokenOf(claimUrl);
    // Stored hashed; e-mailed to the buyer; never in an event.
    const [row] = await getDb().select().from(refunds).where(eq(refunds.id, created.json.data.id));
    expect(row!.claimTokenHash).not.toContain(token);
    expect(readOutbox('email', email).some((mail) => mail.text.includes(claimUrl))).toBe(true);
    const [event] = await eventsOf(chargeId, 'refund.created');
    expect((event!.payload as { data: { refund: { status: string } } }).data.refund.status).toBe('awaiting_claim');
    expect(JSON.stringify(event!.payload)).not.toContain(token);
    // The amount is reserved: nothing else can be refunded meanwhile.
    expect(await refundable(chargeId)).toBe('0');
    expect((await refund(chargeId, { amount: '1' })).json.error).toMatchObject({ code: 'refund_exceeds_refundable' });

    expect(await findRefundClaim(token)).toMatchObject({ amount: '25', symbol: 'USDC', status: 'awaiting_claim', chainName: 'Polygon' });
    const badAddress = await claimRefund({ token, to: { address: '0x1234' } }).catch((error: unknown) => error);
    expect(badAddress).toMatchObject({ code: 'invalid_address', param: 'address' });

    const payerAddress = privateKeyToAccount(generatePrivateKey()).address;
    const [first, second] = await Promise.all([
      claimRefund({ token, to: { address: payerAddress } }),
      claimRefund({ token, to: { address: payerAddress } }),
    ]);
    expect(first.destination).toBe(payerAddress);
    expect(second.destination).toBe(payerAddress);
    // A later claim to elsewhere changes nothing.
    expect((await claimRefund({ token, to: { address: privateKeyToAccount(generatePrivateKey()).address } })).destination).toBe(
      payerAddress,
    );
    expect(await refundTransfers(chargeId)).toHaveLength(1);
    expect(await eventsOf(chargeId, 'refund.claimed')).toHaveLength(1);
    expect(await untilFinal(created.json.data.id)).toBe('confirmed');
    expect(await usdcOf(payerAddress)).toBe(parseUnits('25', 6));
    expect(await eventsOf(chargeId, 'refund.succeeded')).toHaveLength(1);
    expect(await refundable(chargeId)).toBe('0');
  });

  it('an unclaimed link expires: refund.expired, refundable again, the link closed; a new one is claimed into the payer’s balance', async () => {
    const { chargeId } = await paidByTwo();
    const first = await refund(chargeId, { amount: '0.5' });
    expect(first.json.data.status).toBe('awaiting_claim');
    expect(await refundable(chargeId)).toBe('0.7');

    // Not before its time.
    expect(await expireRefundClaims(new Date())).toBe(0);
    expect(await expireRefundClaims(new Date(Date.now() + 31 * 24 * 3600_000))).toBeGreaterThanOrEqual(1);
    expect(await refundable(chargeId)).toBe('1.2');
    expect(await eventsOf(chargeId, 'refund.expired')).toHaveLength(1);
    const closed = await claimRefund({
      token: tokenOf(first.json.data.claimUrl),
      to: { address: privateKeyToAccount(generatePrivateKey()).address },
    }).catch((error: unknown) => error);
    expect(closed).toMatchObject({ code: 'refund_claim_closed' });
    expect(await refundTransfers(chargeId)).toHaveLength(0);

    const payerEmail = uniqueEmail('claimer');
    const payer = (
      await getDb().transaction((tx) => createUser(tx, { email: payerEmail, emailVerified: true, method: 'email', subject: payerEmail }))
    ).id;
    const wallet = (await listWallets(payer)).find((w) => w.family === 'evm')!.address as Address;
    const second = await refund(chargeId, { amount: '0.5' });
    const claimed = await claimRefund({ token: tokenOf(second.json.data.claimUrl), to: { balanceOfUserId: payer } });
    expect(claimed.destination).toBe(wallet);
    expect(await untilFinal(second.json.data.id)).toBe('confirmed');
    expect(await usdcOf(wallet)).toBe(parseUnits('0.5', 6));
    expect(await refundable(chargeId)).toBe('0.7');
  });

  it('expiry takes the charge’s lock before the refund’s, as a claim does: a claim under way is never deadlocked, the link expires on the next run', async () => {
    const { chargeId } = await paidByTwo();
    const refundId = (await refund(chargeId, { amount: '0.5' })).json.data.id as string;
    const later = new Date(Date.now() + 400 * 24 * 3600_000);
    let expiring: Promise<{ error?: unknown }> | undefined;
    // A claim's order: the charge's row, then (a moment later) the refund's, while the job runs.
    await getDb().transaction(async (tx) => {
      await tx.select().from(charges).where(eq(charges.id, chargeId)).for('update');
      expiring = expireRefundClaims(later).then(
        () => ({}),
        (error: unknown) => ({ error }),
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await tx.select().from(refunds).where(eq(refunds.id, refundId)).for('update');
    });
    expect(await expiring).toEqual({});
    const status = async () => (await getDb().select().from(refunds).where(eq(refunds.id, refundId)))[0]!.claimStatus;
    expect(await status()).toBe('awaiting_claim'); // skipped while the claim held the charge
    await expireRefundClaims(later);
    expect(await status()).toBe('expired');
    expect(await eventsOf(chargeId, 'refund.expired')).toHaveLength(1);
  });
});

describe('the public claim page', () => {
  it('an unknown or malformed token is not found; each client is limited to 30 looks or claims per 10 minutes', async () => {
    expect(await findRefundClaim('x'.repeat(32)).catch((error: unknown) => error)).toMatchObject({ code: 'not_found' });
    expect(await findRefundClaim('../../etc').catch((error: unknown) => error)).toMatchObject({ code: 'not_found' });
    const ip = `203.0.113.${Math.floor(Math.random() * 250)}`;
    for (let i = 0; i < 30; i++) await consumeRefundClaimLimit(ip);
    expect(await consumeRefundClaimLimit(ip).catch((error: unknown) => error)).toMatchObject({ code: 'rate_limited' });
    await consumeRefundClaimLimit('198.51.100.7');
  });
});

describe('dashboard refunds to an address that did not pay (N2)', () => {
  it('an admin is refused; an owner needs two-factor sign-in on a verified merchant, then every owner is e-mailed', async () => {
    const owner = await newUser({ pin: PIN });
    const coOwner = await newUser();
    const admin = await newUser({ pin: PIN });
    await getDb()
      .insert(merchantMembers)
      .values([
        { merchantId: merchant.id, userId: owner, role: 'owner' },
        { merchantId: merchant.id, userId: coOwner, role: 'owner' },
        { merchantId: merchant.id, userId: admin, role: 'admin' },
      ]);
    const { chargeId, senders } = await paidByTwo();
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const asMember = (userId: string, toAddress: string, amount = '0.1') =>
      refundFromDashboard({
        userId,
        merchantId: merchant.id,
        mode: 'live',
        chargeId,
        amount,
        toAddress,
        pin: PIN,
        requestId: newRefundRequestId(),
      });

    expect(await asMember(admin, stranger).catch((error: unknown) => error)).toMatchObject({ code: 'refund_destination_not_payer' });
    expect(await asMember(owner, stranger).catch((error: unknown) => error)).toMatchObject({ code: 'two_factor_required' });
    expect(await refundTransfers(chargeId)).toHaveLength(0);

    // To one of the senders: the payer, so an admin may.
    expect(await asMember(admin, senders[0]!)).toMatchObject({
      destination: senders[0],
      status: expect.stringMatching(/pending|submitted/),
    });

    await enrolTotp(owner);
    const approved = await asMember(owner, stranger);
    expect(approved.destination).toBe(stranger);
    expect(await untilFinal(approved.id)).toBe('confirmed');
    expect(await usdcOf(stranger)).toBe(parseUnits('0.1', 6));
    const [coOwnerRow] = await getDb().select().from(merchantMembers).where(eq(merchantMembers.userId, coOwner));
    expect(coOwnerRow).toBeDefined();
    const mails = readOutbox('email', `${coOwner.toLowerCase()}@example.test`);
    expect(mails.some((mail) => mail.subject?.includes('did not pay') && mail.text.includes(stranger))).toBe(true);
  });
});
