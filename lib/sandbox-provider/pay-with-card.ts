/**
 * The buyer's actions on the payment screen: pay by card (test cards decide the outcome), pay by bank
 * transfer / Apple Pay / Google Pay (always accepted), and answer the 3-D Secure challenge. Each moves
 * the session one guarded step (transition-session.ts); the follow-up (webhooks, delivery) is fulfil-session.ts.
 */
import type { SandboxPaymentMethod, SandboxProviderSessionRow } from '@/lib/db/schema/sandbox-provider';
import { validateCard, type CardField, type CardFieldErrors } from './card';
import { SandboxApiError } from './errors';
import { findSession } from './find-session';
import { transitionSession } from './transition-session';
import { isAwaitingBuyer, isExpired } from './state';

export type PaymentResult =
  /** Paid: the session is processing and the tokens are on the way. */
  | { status: 'paid' }
  | { status: 'authentication_required' }
  /** The payment failed; the session is over. */
  | { status: 'failed'; reason: 'card_declined' | 'authentication_failed' }
  /** The form has errors; nothing changed. */
  | { status: 'invalid'; fieldErrors: CardFieldErrors };

async function sessionAwaiting(sessionId: string, expected: 'open' | 'authenticating', now: Date): Promise<SandboxProviderSessionRow> {
  const session = await findSession(sessionId);
  if (!session) throw new SandboxApiError('not_found', 'This payment session does not exist.');
  if (isExpired(session, now)) throw new SandboxApiError('session_expired', 'This payment session has expired.');
  if (session.status !== expected) {
    throw new SandboxApiError(
      'session_finished',
      isAwaitingBuyer(session.status)
        ? 'This payment is waiting for another step: reload the page.'
        : 'This payment session is already finished.',
    );
  }
  return session;
}

/** A concurrent request moved the session first (double submit): the first one's outcome stands. */
function alreadyHandled(): SandboxApiError {
  return new SandboxApiError('session_finished', 'This payment session is already finished.');
}

export async function payWithCard(input: { sessionId: string; card: Record<CardField, string>; now?: Date }): Promise<PaymentResult> {
  const now = input.now ?? new Date();
  await sessionAwaiting(input.sessionId, 'open', now);
  const card = validateCard(input.card, now);
  if (!card.ok) return { status: 'invalid', fieldErrors: card.errors };

  const paid = { paidWith: 'card' as const, cardLast4: card.last4 };
  const move = { sessionId: input.sessionId, from: ['open'] as const, unexpiredAt: now };
  switch (card.outcome) {
    case 'success':
      if (!(await transitionSession({ ...move, to: 'processing', set: paid }))) throw alreadyHandled();
      return { status: 'paid' };
    case 'declined':
      if (!(await transitionSession({ ...move, to: 'failed', set: { ...paid, failureReason: 'card_declined' } }))) throw alreadyHandled();
      return { status: 'failed', reason: 'card_declined' };
    case 'authentication_required':
      if (!(await transitionSession({ ...move, to: 'authenticating', set: paid }))) throw alreadyHandled();
      return { status: 'authentication_required' };
  }
}

export async function payWithoutCard(input: {
  sessionId: string;
  method: Exclude<SandboxPaymentMethod, 'card'>;
  now?: Date;
}): Promise<PaymentResult> {
  const now = input.now ?? new Date();
  await sessionAwaiting(input.sessionId, 'open', now);
  const moved = await transitionSession({
    sessionId: input.sessionId,
    from: ['open'],
    to: 'processing',
    set: { paidWith: input.method },
    unexpiredAt: now,
  });
  if (!moved) throw alreadyHandled();
  return { status: 'paid' };
}

/** The 3-D Secure challenge's two buttons: "Complete authentication" (passed) and "Fail authentication". */
export async function answerAuthentication(input: { sessionId: string; passed: boolean; now?: Date }): Promise<PaymentResult> {
  const now = input.now ?? new Date();
  await sessionAwaiting(input.sessionId, 'authenticating', now);
  const move = { sessionId: input.sessionId, from: ['authenticating'] as const, unexpiredAt: now };
  if (input.passed) {
    if (!(await transitionSession({ ...move, to: 'processing' }))) throw alreadyHandled();
    return { status: 'paid' };
  }
  if (!(await transitionSession({ ...move, to: 'failed', set: { failureReason: 'authentication_failed' } }))) throw alreadyHandled();
  return { status: 'failed', reason: 'authentication_failed' };
}
