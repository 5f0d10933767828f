/**
 * When and how long to wait before retrying a request. Only requests that are safe to repeat are
 * retried: GET (and other idempotent methods), and POSTs that carry an `Idempotency-Key`, which the
 * API answers with the first result again instead of acting twice.
 */

/** Longest `Retry-After` the client waits out by itself; a longer one is handed to the caller as a RateLimitError. */
const MAX_RETRY_AFTER_SECONDS = 60;
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export function isRetryable(method: string, headers: Record<string, string>): boolean {
  return IDEMPOTENT_METHODS.has(method.toUpperCase()) || Object.keys(headers).some((name) => name.toLowerCase() === 'idempotency-key');
}

/** Whether this answer's status is worth another attempt: 429 and 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** 0.5 s, 1 s, 2 s … (at most 8 s), each ±25 % so that many clients do not retry in step. */
function backoffMs(attempt: number): number {
  return Math.min(8_000, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date), or undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** How long to wait before the next attempt after a 429/5xx; undefined: do not retry (the server asked for longer than we wait). */
export function retryDelayMs(retryAfter: number | undefined, attempt: number): number | undefined {
  if (retryAfter === undefined) return backoffMs(attempt);
  if (retryAfter > MAX_RETRY_AFTER_SECONDS) return undefined;
  return retryAfter * 1000;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
