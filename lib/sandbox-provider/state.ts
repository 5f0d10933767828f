/**
 * A Sandpiper Pay session's life: open → (authenticating →) processing → completed, or failed from any
 * step before completion (declined card, failed 3-D Secure, delivery that did not go through).
 * Expiry is not a status: an open or authenticating session past expiresAt takes no more payment.
 */
import { defineStateMachine } from '@/lib/state-machine';

export const SANDBOX_SESSION_STATUSES = ['open', 'authenticating', 'processing', 'completed', 'failed'] as const;
export type SandboxSessionStatus = (typeof SANDBOX_SESSION_STATUSES)[number];

export const sandboxSessionMachine = defineStateMachine({
  name: 'sandbox session',
  statuses: SANDBOX_SESSION_STATUSES,
  transitions: {
    open: ['authenticating', 'processing', 'failed'],
    authenticating: ['processing', 'failed'],
    processing: ['completed', 'failed'],
    completed: [],
    failed: [],
  },
});

/** Whether the buyer can still act on the screen (pay, or answer the 3-D Secure challenge). */
export function isAwaitingBuyer(status: SandboxSessionStatus): boolean {
  return status === 'open' || status === 'authenticating';
}

export function isExpired(session: { status: SandboxSessionStatus; expiresAt: Date }, now: Date): boolean {
  return isAwaitingBuyer(session.status) && now.getTime() >= session.expiresAt.getTime();
}

/** The status as the provider's webhooks name it; open and authenticating are never announced. */
export function webhookStatus(status: SandboxSessionStatus): 'PROCESSING' | 'COMPLETED' | 'FAILED' | undefined {
  switch (status) {
    case 'processing':
      return 'PROCESSING';
    case 'completed':
      return 'COMPLETED';
    case 'failed':
      return 'FAILED';
    case 'open':
    case 'authenticating':
      return undefined;
  }
}
