import { describe, expect, it } from 'vitest';
import { MAX_DELIVERY_ATTEMPTS, RETRY_JITTER, nextAttemptDelay } from './next-attempt-delay';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const middle = () => 0.5;

describe('nextAttemptDelay', () => {
  it.each([
    [1, 5 * SECOND],
    [2, 5 * MINUTE],
    [3, 30 * MINUTE],
    [4, 2 * HOUR],
    [5, 5 * HOUR],
    [6, 10 * HOUR],
    [7, 14 * HOUR],
    [8, 20 * HOUR],
    [9, 24 * HOUR],
  ])('after failed attempt %i waits %i ms (no jitter at random = 0.5)', (attempt, delay) => {
    expect(nextAttemptDelay(attempt, middle)).toBe(delay);
  });

  it('gives up after the 10th attempt', () => {
    expect(MAX_DELIVERY_ATTEMPTS).toBe(10);
    expect(nextAttemptDelay(10, middle)).toBeNull();
    expect(nextAttemptDelay(11, middle)).toBeNull();
  });

  it('adds up to about 3 days 3 hours from the first attempt to the last', () => {
    let total = 0;
    for (let attempt = 1; attempt < MAX_DELIVERY_ATTEMPTS; attempt++) total += nextAttemptDelay(attempt, middle)!;
    expect(total).toBe(75 * HOUR + 35 * MINUTE + 5 * SECOND);
  });

  it('jitters by at most ±20%, the extremes at random = 0 and random → 1', () => {
    expect(RETRY_JITTER).toBe(0.2);
    expect(nextAttemptDelay(4, () => 0)).toBe(1.6 * HOUR);
    expect(nextAttemptDelay(4, () => 0.999_999_9)).toBeCloseTo(2.4 * HOUR, -2);
    expect(nextAttemptDelay(1, () => 0.25)).toBe(4.5 * SECOND);
    for (let i = 0; i < 200; i++) {
      const delay = nextAttemptDelay(2)!;
      expect(delay).toBeGreaterThanOrEqual(4 * MINUTE);
      expect(delay).toBeLessThanOrEqual(6 * MINUTE);
    }
  });

  it('clamps a misbehaving random source into the ±20% band', () => {
    expect(nextAttemptDelay(1, () => -3)).toBe(4 * SECOND);
    expect(nextAttemptDelay(1, () => 7)).toBe(6 * SECOND);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses attempt number %s', (attempt) => {
    expect(() => nextAttemptDelay(attempt)).toThrow(RangeError);
  });
});
