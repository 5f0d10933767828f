/**
 * When a failed webhook delivery is tried again: the Standard Webhooks schedule. Attempt 1 goes out
 * at once; each later attempt waits the delay below after the previous attempt failed, so an
 * endpoint that stays down gets 10 attempts over about 3 days and 3 hours before the message is
 * given up on.
 *
 * Each delay is spread by ±20% so that deliveries which failed together (an endpoint's outage)
 * do not all come back in the same second.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before attempt n+1 (index n-1), nominal, before jitter. Attempt 1 is immediate. */
const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR] as const;

/** Attempts in all: the immediate one plus one per delay. */
export const MAX_DELIVERY_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Largest relative change jitter makes to a delay. */
export const RETRY_JITTER = 0.2;

/**
 * Milliseconds to wait before the next attempt, after attempt `attemptNumber` (1-based) failed;
 * `null` when that was the last attempt. `random` returns a number in [0, 1) (tests pass a constant).
 */
export function nextAttemptDelay(attemptNumber: number, random: () => number = Math.random): number | null {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) {
    throw new RangeError(`attemptNumber is the 1-based number of the failed attempt, got ${attemptNumber}`);
  }
  const nominal = RETRY_DELAYS_MS[attemptNumber - 1];
  if (nominal === undefined) return null;
  const drawn = random();
  const unit = Number.isFinite(drawn) ? Math.min(Math.max(drawn, 0), 1) : 0.5;
  return Math.round(nominal * (1 + RETRY_JITTER * (2 * unit - 1)));
}
