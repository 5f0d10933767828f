/** What one delivery attempt sent and how it ended: shared by the sender (attempt-delivery.ts) and the recorder (record-outcomes.ts). */
import type { ClaimedDelivery } from './claim-deliveries';
import type { DeliveryResult } from './deliver-webhook-request';

export type SentAttempt =
  | { claimed: ClaimedDelivery; result: DeliveryResult }
  /** Not sent: the endpoint was disabled after the attempt was scheduled. */
  | { claimed: ClaimedDelivery; canceled: true };

export type AttemptOutcome =
  | { kind: 'succeeded'; status: number }
  | { kind: 'failed'; code: string; status?: number; nextAttemptAt: Date | null; endpointFailing: boolean }
  | { kind: 'endpoint_disabled'; status: 410 }
  /** Not sent: the endpoint was disabled (or deleted) before this attempt. */
  | { kind: 'canceled' }
  /** Nothing to do: the row is gone or already finished (a duplicate job). */
  | { kind: 'skipped' }
  /** Our claim was taken over while we were sending (we were too slow); the new holder records. */
  | { kind: 'superseded' };
