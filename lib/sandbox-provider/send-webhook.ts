/**
 * Sandpiper Pay's order webhooks to the partner: `order.updated` events signed with
 * `Sandbox-Signature`. A delivery that gets no 2xx is retried a few times with growing pauses, in
 * this process (a restart drops the remaining retries; the partner's order page still sees the state
 * once the next event of the session arrives).
 */
import { formatAmount } from '@/lib/money';
import { newId } from '@/lib/ids';
import { log } from '@/lib/log';
import type { SandboxProviderSessionRow } from '@/lib/db/schema/sandbox-provider';
import { SANDBOX_SIGNATURE_HEADER, signSandboxWebhook } from '@/lib/onramp/providers/sandbox';
import type { FetchLike } from '@/lib/onramp/providers/types';
import { partnerWebhookUrl, sandboxProviderSecret } from './config';
import { webhookStatus } from './state';

/** Pauses before the 2nd, 3rd and 4th attempt. */
const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 25_000];
const ATTEMPT_TIMEOUT_MS = 10_000;

export interface WebhookOptions {
  /** Defaults to the partner's registered URL (APP_URL/api/onramp/webhooks/sandbox). */
  webhookUrl?: string;
  secret?: string;
  fetch?: FetchLike;
  retryDelaysMs?: readonly number[];
}

interface OrderUpdatedEvent {
  id: string;
  type: 'order.updated';
  createdAt: string;
  data: {
    orderId: string;
    partnerOrderId: string;
    status: 'PROCESSING' | 'COMPLETED' | 'FAILED';
    chain: string;
    tokenSymbol: string;
    cryptoAmount: string;
    walletAddress: string;
    txHash?: string;
    failureReason?: string;
    updatedAt: string;
  };
}

function orderUpdatedEvent(session: SandboxProviderSessionRow, now: Date): OrderUpdatedEvent {
  const status = webhookStatus(session.status);
  if (!status) throw new Error(`session ${session.id} is ${session.status}: nothing to announce`);
  return {
    id: newId('sandboxWebhookEvent'),
    type: 'order.updated',
    createdAt: now.toISOString(),
    data: {
      orderId: session.id,
      partnerOrderId: session.partnerOrderId,
      status,
      chain: session.chain,
      tokenSymbol: session.tokenSymbol,
      cryptoAmount: formatAmount(session.cryptoBaseUnits, session.tokenDecimals),
      walletAddress: session.walletAddress,
      ...(session.txHash ? { txHash: session.txHash } : {}),
      ...(session.status === 'failed' && session.failureReason ? { failureReason: session.failureReason } : {}),
      updatedAt: session.updatedAt.toISOString(),
    },
  };
}

/** Sends the session's current state; true once the partner answered 2xx. Never throws. */
export async function sendOrderWebhook(session: SandboxProviderSessionRow, options: WebhookOptions = {}): Promise<boolean> {
  const url = options.webhookUrl ?? partnerWebhookUrl();
  const secret = options.secret ?? sandboxProviderSecret();
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => fetch(input, init));
  const delays = options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  // One event, one id: retries resend the same body, re-signed with the time of the attempt.
  const event = orderUpdatedEvent(session, new Date());
  const body = JSON.stringify(event);
  for (let attempt = 0; ; attempt++) {
    let outcome: string;
    try {
      const response = await fetchImpl(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [SANDBOX_SIGNATURE_HEADER]: signSandboxWebhook(secret, body, Math.floor(Date.now() / 1000)),
        },
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      await response.body?.cancel().catch(() => {});
      if (response.ok) return true;
      outcome = `HTTP ${response.status}`;
    } catch (error) {
      outcome = error instanceof Error ? error.message : String(error);
    }
    const delay = delays[attempt];
    if (delay === undefined) {
      log.warn('sandbox provider: webhook not delivered, giving up', {
        sessionId: session.id,
        eventId: event.id,
        attempts: attempt + 1,
        outcome,
      });
      return false;
    }
    log.info('sandbox provider: webhook not delivered, retrying', {
      sessionId: session.id,
      eventId: event.id,
      attempt: attempt + 1,
      outcome,
    });
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}
