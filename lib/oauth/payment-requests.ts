/**
 * In-app pay: an app with the `payments` scope pays one of its merchant's charges for the signed-in
 * user, who confirms on Chargeport's own origin with the PIN — never in the app (ADR 0020).
 *
 *  1. `createPaymentRequest` (POST /api/oauth/payment-requests, bearer token): the charge must be the
 *     token's app's merchant's (else `not_found`, as for any charge one cannot see) and payable. It
 *     returns a user code and verification URIs, like the device grant (RFC 8628): the web SDK opens
 *     `verificationUriComplete` in a popup; a game shows `userCode` and `verificationUri`.
 *  2. The user opens /oauth/pay on Chargeport, signed in as the token's user (another account is
 *     refused), sees the app, the merchant and what the charge buys, and types the PIN.
 *  3. `confirmPaymentRequest` pays through `payFromBalance` — the checkout's exactly-once path (charge
 *     row lock, one live balance payment per charge, signed and recorded before broadcast).
 *  4. The app polls GET /api/oauth/payment-requests/{id} until the charge succeeds.
 *
 * A token alone can never move money: the PIN is checked on step 3, by the user, on our page — or the
 * user taps Pay there within a spending allowance they approved for this merchant with the PIN (ADR 0034).
 */
import type { SolanaRpcOptions } from '@/lib/chains/solana-rpc';
import 'server-only';
import { and, eq, gt, inArray } from 'drizzle-orm';
import { randomInt } from 'node:crypto';
import { getDb } from '@/lib/db/client';
import { charges, merchants, oauthClients, oauthPaymentRequests, type OAuthPaymentRequest } from '@/lib/db/schema';
import { env } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { payFromBalance } from '@/lib/payments/pay-from-balance';
import type { AccessTokenContext } from './authenticate-access-token';
import { paymentRequestMachine } from './state';

/** How long a request can be confirmed (never past the charge's own expiry). */
const REQUEST_TTL_MS = 10 * 60 * 1000;
/** Seconds between an app's polls. */
const POLL_INTERVAL_SECONDS = 2;
/** RFC 8628's base-20 alphabet: no vowels (no words), no look-alikes. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';

function newUserCode(): string {
  const chars = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]);
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}

/** "bcdf ghjk", "BCDFGHJK" → "BCDF-GHJK"; anything else → undefined. */
export function normaliseUserCode(input: string): string | undefined {
  const letters = input.toUpperCase().replace(/[^A-Z]/g, '');
  if (letters.length !== 8 || [...letters].some((char) => !USER_CODE_ALPHABET.includes(char))) return undefined;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

export interface PaymentRequestView {
  id: string;
  chargeId: string;
  status: OAuthPaymentRequest['status'];
  chargeStatus: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete: string;
  expiresAt: string;
  interval: number;
  txHash: string | null;
}

function effectiveStatus(request: OAuthPaymentRequest, now: Date): OAuthPaymentRequest['status'] {
  return request.status === 'pending' && request.expiresAt <= now ? 'expired' : request.status;
}

function viewOf(request: OAuthPaymentRequest, chargeStatus: string, now = new Date()): PaymentRequestView {
  const verificationUri = `${env().APP_URL.replace(/\/+$/, '')}/oauth/pay`;
  return {
    id: request.id,
    chargeId: request.chargeId,
    status: effectiveStatus(request, now),
    chargeStatus,
    userCode: request.userCode,
    verificationUri,
    verificationUriComplete: `${verificationUri}?user_code=${encodeURIComponent(request.userCode)}`,
    expiresAt: request.expiresAt.toISOString(),
    interval: POLL_INTERVAL_SECONDS,
    txHash: request.txHash,
  };
}

export async function createPaymentRequest(
  input: { ctx: AccessTokenContext; chargeId: string },
  now = new Date(),
): Promise<PaymentRequestView> {
  const { ctx } = input;
  const [charge] = await getDb()
    .select({ id: charges.id, merchantId: charges.merchantId, status: charges.status, expiresAt: charges.expiresAt })
    .from(charges)
    .where(eq(charges.id, input.chargeId));
  // Another merchant's charge looks exactly like no charge: a token pays its own merchant's charges only.
  if (!charge || charge.merchantId !== ctx.merchantId)
    throw new AppError('not_found', `No charge ${input.chargeId} of this app's merchant.`, { param: 'chargeId' });
  if (charge.status !== 'pending' || charge.expiresAt <= now) {
    throw new AppError(
      'charge_not_payable',
      `This charge is ${charge.status === 'pending' ? 'expired' : charge.status} and cannot be paid.`,
      { param: 'chargeId' },
    );
  }
  // The same app asking again for the same user and charge gets the pending request back (a retry, a second click).
  const [pending] = await getDb()
    .select()
    .from(oauthPaymentRequests)
    .where(
      and(
        eq(oauthPaymentRequests.clientId, ctx.clientId),
        eq(oauthPaymentRequests.userId, ctx.userId),
        eq(oauthPaymentRequests.chargeId, charge.id),
        eq(oauthPaymentRequests.status, 'pending'),
        gt(oauthPaymentRequests.expiresAt, now),
      ),
    );
  if (pending) return viewOf(pending, charge.status, now);
  const expiresAt = new Date(Math.min(now.getTime() + REQUEST_TTL_MS, charge.expiresAt.getTime()));
  for (let attempt = 0; ; attempt++) {
    try {
      const [created] = await getDb()
        .insert(oauthPaymentRequests)
        .values({
          id: newId('oauthPaymentRequest'),
          clientId: ctx.clientId,
          userId: ctx.userId,
          chargeId: charge.id,
          userCode: newUserCode(),
          expiresAt,
        })
        .returning();
      return viewOf(created!, charge.status, now);
    } catch (error) {
      // A user code still pending elsewhere (1 in 25 billion): draw another.
      if (attempt < 3 && (error as { code?: string }).code === '23505') continue;
      throw error;
    }
  }
}

/** The app's view of one of its requests (another app's or user's is `not_found`). */
export async function getPaymentRequest(input: { ctx: AccessTokenContext; id: string }): Promise<PaymentRequestView> {
  const [row] = await getDb()
    .select({ request: oauthPaymentRequests, chargeStatus: charges.status })
    .from(oauthPaymentRequests)
    .innerJoin(charges, eq(charges.id, oauthPaymentRequests.chargeId))
    .where(
      and(
        eq(oauthPaymentRequests.id, input.id),
        eq(oauthPaymentRequests.clientId, input.ctx.clientId),
        eq(oauthPaymentRequests.userId, input.ctx.userId),
      ),
    );
  if (!row) throw new AppError('not_found', `No payment request ${input.id} of this app and user.`);
  return viewOf(row.request, row.chargeStatus);
}

export interface PaymentRequestForUser {
  id: string;
  userCode: string;
  status: OAuthPaymentRequest['status'];
  chargeId: string;
  appName: string;
  merchantName: string;
  isForThisUser: boolean;
  txHash: string | null;
}

/** What the verification page shows for a code: the app, the merchant, and whether this user may confirm it. */
export async function findPaymentRequestByCode(
  input: { userCode: string; userId: string },
  now = new Date(),
): Promise<PaymentRequestForUser> {
  const code = normaliseUserCode(input.userCode);
  if (!code)
    throw new AppError('invalid_request', 'Enter the 8-letter code your game or app shows, like BCDF-GHJK.', { param: 'userCode' });
  const rows = await getDb()
    .select({ request: oauthPaymentRequests, appName: oauthClients.name, merchantName: merchants.name })
    .from(oauthPaymentRequests)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthPaymentRequests.clientId))
    .innerJoin(merchants, eq(merchants.id, oauthClients.merchantId))
    .where(eq(oauthPaymentRequests.userCode, code));
  // The user's own request first (codes are unique only while pending), then the newest.
  const row = rows.sort(
    (a, b) =>
      Number(b.request.userId === input.userId) - Number(a.request.userId === input.userId) ||
      b.request.createdAt.getTime() - a.request.createdAt.getTime(),
  )[0];
  if (!row) throw new AppError('not_found', 'No payment with this code: check it on your device.', { param: 'userCode' });
  return {
    id: row.request.id,
    userCode: row.request.userCode,
    status: effectiveStatus(row.request, now),
    chargeId: row.request.chargeId,
    appName: row.appName,
    merchantName: row.merchantName,
    isForThisUser: row.request.userId === input.userId,
    txHash: row.request.txHash,
  };
}

/**
 * The user confirms with the PIN — or with one tap within a spending allowance for the merchant (no `pin`;
 * payFromBalance refuses with step_up_required when none covers it): the charge is paid from their
 * balance by the checkout's own path.
 * A wrong PIN leaves the request pending (the PIN's own lockout applies); a repeat after success
 * returns the same transfer (payFromBalance is idempotent for the same payer).
 */
export async function confirmPaymentRequest(
  input: { requestId: string; userId: string; pin?: string },
  now = new Date(),
  options: SolanaRpcOptions = {},
): Promise<{ txHash: string }> {
  const request = await requestOfUser(input.requestId, input.userId);
  const status = effectiveStatus(request, now);
  if (status === 'confirmed' && request.txHash) return { txHash: request.txHash };
  if (status !== 'pending') throw new AppError('charge_not_payable', `This payment request is ${status}: start again from the app.`);
  const paid = await payFromBalance({ userId: input.userId, chargeId: request.chargeId, pin: input.pin }, options);
  await getDb()
    .update(oauthPaymentRequests)
    .set({ status: 'confirmed', transferId: paid.transferId, txHash: paid.txHash, decidedAt: now })
    .where(
      and(eq(oauthPaymentRequests.id, request.id), inArray(oauthPaymentRequests.status, paymentRequestMachine.leadingTo('confirmed'))),
    );
  return { txHash: paid.txHash };
}

export async function declinePaymentRequest(input: { requestId: string; userId: string }, now = new Date()): Promise<void> {
  const request = await requestOfUser(input.requestId, input.userId);
  if (effectiveStatus(request, now) !== 'pending')
    throw new AppError('charge_not_payable', 'This payment request can no longer be declined.');
  await getDb()
    .update(oauthPaymentRequests)
    .set({ status: 'declined', decidedAt: now })
    .where(and(eq(oauthPaymentRequests.id, request.id), inArray(oauthPaymentRequests.status, paymentRequestMachine.leadingTo('declined'))));
}

async function requestOfUser(requestId: string, userId: string): Promise<OAuthPaymentRequest> {
  const [request] = await getDb().select().from(oauthPaymentRequests).where(eq(oauthPaymentRequests.id, requestId));
  if (!request) throw new AppError('not_found', 'No such payment request.');
  if (request.userId !== userId) {
    throw new AppError(
      'forbidden',
      'This payment was requested for another Chargeport account: sign in with the account you use in the app.',
    );
  }
  return request;
}
