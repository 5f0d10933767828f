/**
 * A provider's webhook, from raw request to order state:
 *
 *  1. the provider's adapter verifies the signature over the exact bytes (a forgery changes nothing);
 *  2. a body already applied is acknowledged and ignored (providers redeliver; receipts are unique);
 *  3. the order is found by our id (echoed by the provider) or the provider's id, and checked: the update
 *     must be for this order's wallet, chain and token;
 *  4. the status moves only forward (orders/state.ts), so updates arriving out of order are harmless;
 *  5. a fiat payment of a charge that failed emits `payment.failed` (the charge stays payable).
 *
 * Steps 2–5 run in one transaction with the order row locked: two deliveries at once apply once.
 */
import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { CHAINS, normalizeAddress, tokenHasSymbol, type ChainName } from '@/lib/chains/registry';
import { crashPoint } from '@/lib/crash-points';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { onrampOrderEvents, onrampOrders, onrampWebhookReceipts, type OnrampOrderRow } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import { parseAmount } from '@/lib/money';
import { adapterFor, isPlayedBySandbox } from '@/lib/onramp/providers/adapter-for';
import { SANDBOX_WEBHOOK_PATH_ID, sandboxWebhookAdapter } from '@/lib/onramp/providers/sandbox-adapter';
import type { OnrampOrderUpdate, OnrampProviderAdapter, OnrampProviderId, WebhookHeaders } from '@/lib/onramp/providers/types';
import { ONRAMP_PROVIDER_IDS } from '@/lib/onramp/providers/types';
import { registryEntries } from '@/lib/onramp/registry/registry-entries';
import { emitPaymentFailed } from '@/lib/charges/charge-events';
import type { z } from 'zod';
import type { providerWebhookAnswerSchema } from '@/lib/onramp/schemas';
import { onrampOrderMachine } from './state';

type WebhookOutcome = Exclude<z.infer<typeof providerWebhookAnswerSchema>['outcome'], 'rejected' | 'unknown_provider'>;

/** Largest provider webhook body read (MoonPay and Transak send a few KiB); larger → 413 before reading on. */
export const PROVIDER_WEBHOOK_MAX_BYTES = 256 * 1024;

export interface WebhookResult {
  /** HTTP status for the provider: 2xx stops its retries, 4xx says the request was not accepted. */
  status: number;
  outcome: WebhookOutcome | 'rejected' | 'unknown_provider';
  orderId?: string;
  message?: string;
}

export async function applyProviderWebhook(
  pathProviderId: string,
  request: { headers: WebhookHeaders; rawBody: string },
  now = new Date(),
): Promise<WebhookResult> {
  const adapter = await webhookAdapter(pathProviderId);
  if (!adapter) return { status: 404, outcome: 'unknown_provider', message: 'no such provider here' };

  const verified = await adapter.verifyWebhook({ headers: request.headers, rawBody: request.rawBody, now });
  if (!verified.ok) {
    log.warn('on-ramp webhook not applied', { provider: pathProviderId, reason: verified.code, message: verified.message });
    // Authentic but nothing to apply: 200 so the provider stops retrying. Not authentic: 401/400.
    if (verified.authentic) return { status: 200, outcome: 'ignored', message: verified.code };
    return {
      status: verified.code === 'missing_signature' || verified.code === 'malformed_signature' ? 400 : 401,
      outcome: 'rejected',
      message: verified.code,
    };
  }

  const bodySha256 = createHash('sha256').update(request.rawBody).digest('hex');
  return getDb().transaction(async (tx) => {
    const [receipt] = await tx
      .insert(onrampWebhookReceipts)
      .values({ id: newId('onrampWebhookReceipt'), providerId: pathProviderId, bodySha256, outcome: 'received' })
      .onConflictDoNothing()
      .returning({ id: onrampWebhookReceipts.id });
    if (!receipt) return { status: 200, outcome: 'duplicate' as const };

    const order = await lockOrder(tx, verified.update, pathProviderId);
    const result = order ? await applyUpdate(tx, order, verified.update, now) : { outcome: 'unknown_order' as const };
    await tx
      .update(onrampWebhookReceipts)
      .set({ outcome: result.outcome, orderId: order?.id ?? null })
      .where(eq(onrampWebhookReceipts.id, receipt.id));
    crashPoint('onramp.webhook_applying');
    if (result.outcome === 'unknown_order')
      log.warn('on-ramp webhook for an unknown order', { provider: pathProviderId, providerOrderId: verified.update.providerOrderId });
    return { status: 200, outcome: result.outcome, ...(order ? { orderId: order.id } : {}) };
  });
}

async function webhookAdapter(pathProviderId: string): Promise<OnrampProviderAdapter | undefined> {
  if (pathProviderId === SANDBOX_WEBHOOK_PATH_ID) return sandboxWebhookAdapter();
  if (!(ONRAMP_PROVIDER_IDS as readonly string[]).includes(pathProviderId)) return undefined;
  const entry = (await registryEntries()).find((e) => e.facts.id === pathProviderId);
  if (!entry || isPlayedBySandbox(entry.facts.id, entry.facts.displayName)) return undefined;
  return adapterFor(entry.facts.id, entry.facts.displayName);
}

/** The order the update is about, locked; only one whose provider is the one speaking. */
async function lockOrder(tx: DbOrTx, update: OnrampOrderUpdate, pathProviderId: string): Promise<OnrampOrderRow | undefined> {
  const condition = update.externalOrderId
    ? eq(onrampOrders.id, update.externalOrderId)
    : and(eq(onrampOrders.providerId, update.providerId as OnrampProviderId), eq(onrampOrders.providerOrderId, update.providerOrderId));
  const [order] = await tx.select().from(onrampOrders).where(condition).for('update');
  if (!order) return undefined;
  const speaking =
    pathProviderId === SANDBOX_WEBHOOK_PATH_ID
      ? isPlayedBySandbox(order.providerId as OnrampProviderId, order.providerId)
      : order.providerId === pathProviderId;
  return speaking ? order : undefined;
}

async function applyUpdate(tx: DbOrTx, order: OnrampOrderRow, update: OnrampOrderUpdate, now: Date): Promise<{ outcome: WebhookOutcome }> {
  const mismatch = mismatchOf(order, update);
  if (mismatch) {
    log.error('on-ramp webhook does not match its order: not applied', { orderId: order.id, mismatch });
    return { outcome: 'mismatch' };
  }
  if (!onrampOrderMachine.can(order.status, update.status)) {
    // A redelivery or a late, older update: keep what we know, but learn the provider's id if new.
    if (!order.providerOrderId)
      await tx.update(onrampOrders).set({ providerOrderId: update.providerOrderId }).where(eq(onrampOrders.id, order.id));
    return { outcome: 'unchanged' };
  }
  const delivered = update.cryptoAmount ? parseAmount(update.cryptoAmount, order.tokenDecimals) : undefined;
  await tx
    .update(onrampOrders)
    .set({
      status: update.status,
      providerStatus: update.providerStatus,
      providerOrderId: order.providerOrderId ?? update.providerOrderId,
      lastProviderUpdateAt: now,
      ...(update.status === 'completed' && delivered?.ok ? { deliveredBaseUnits: delivered.baseUnits } : {}),
      ...(update.txHash ? { deliveryTxHash: update.txHash } : {}),
      ...(update.status === 'failed' ? { failureReason: update.failureReason ?? 'The provider reported the purchase as failed.' } : {}),
      updatedAt: sql`now()`,
    })
    .where(eq(onrampOrders.id, order.id));
  await tx.insert(onrampOrderEvents).values({
    id: newId('onrampOrderEvent'),
    orderId: order.id,
    fromStatus: order.status,
    toStatus: update.status,
    providerStatus: update.providerStatus,
    source: 'provider_webhook',
    data: { ...(update.txHash ? { txHash: update.txHash } : {}), ...(update.failureReason ? { failureReason: update.failureReason } : {}) },
  });
  if (update.status === 'failed' && order.chargeId && order.purpose !== 'wallet_topup') {
    await emitPaymentFailed(tx, {
      chargeId: order.chargeId,
      attempt: {
        id: order.id,
        method: 'fiat',
        chain: order.chain,
        txHash: null,
        reason: update.failureReason ?? 'The fiat payment failed at the provider.',
      },
    });
  }
  return { outcome: 'applied' };
}

/** What in the update contradicts the order (another wallet, chain or token), if anything. */
function mismatchOf(order: OnrampOrderRow, update: OnrampOrderUpdate): string | undefined {
  const chain = CHAINS[order.chain as ChainName];
  if (update.walletAddress) {
    let same = false;
    try {
      same = normalizeAddress(chain.family, update.walletAddress) === order.walletAddress;
    } catch {
      same = false;
    }
    if (!same) return `wallet ${update.walletAddress} is not the order's ${order.walletAddress}`;
  }
  if (update.chain && update.chain !== order.chain) {
    // Providers name the main network; the order may be on it or its test network.
    if (CHAINS[update.chain].testnet !== order.chain) return `chain ${update.chain} is not the order's ${order.chain}`;
  }
  if (update.tokenSymbol) {
    const token = chain.tokens.find((t) => t.address === order.tokenAddress);
    if (token && !tokenHasSymbol(token, update.tokenSymbol)) return `token ${update.tokenSymbol} is not the order's ${order.tokenSymbol}`;
  }
  return undefined;
}
