// The on-ramp quote's debounce and stale-answer rules (components/onramp/quote-scheduler.ts); kept
// under app/ because vitest collects tests from lib/ and app/.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createQuoteScheduler, type ScheduledState } from '@/components/onramp/quote-scheduler';

interface Call {
  input: string;
  signal: AbortSignal;
  resolve: (value: string) => void;
  reject: (error: unknown) => void;
}

function setup(delayMs = 500) {
  const calls: Call[] = [];
  const states: ScheduledState<string>[] = [];
  const scheduler = createQuoteScheduler<string, string>({
    delayMs,
    run: (input, signal) =>
      new Promise<string>((resolve, reject) => {
        calls.push({ input, signal, resolve, reject });
      }),
    onState: (state) => states.push(state),
  });
  return { calls, states, scheduler, last: () => states.at(-1) };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('quote scheduler', () => {
  it('asks once, after the user stops typing for the delay', async () => {
    const { calls, scheduler, last } = setup();
    scheduler.schedule('1');
    await vi.advanceTimersByTimeAsync(300);
    scheduler.schedule('12');
    await vi.advanceTimersByTimeAsync(300);
    scheduler.schedule('125');
    expect(last()).toEqual({ status: 'loading' });
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.map((c) => c.input)).toEqual(['125']);
    calls[0]!.resolve('quote for 125');
    await vi.runAllTimersAsync();
    expect(last()).toEqual({ status: 'ready', output: 'quote for 125' });
  });

  it('a stale answer arriving after a newer request never replaces it, and the stale request is aborted', async () => {
    const { calls, scheduler, states, last } = setup();
    scheduler.schedule('10');
    await vi.advanceTimersByTimeAsync(500);
    scheduler.schedule('20');
    expect(calls[0]!.signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    calls[1]!.resolve('quote for 20');
    await vi.runAllTimersAsync();
    // The first request answers late (a server that ignored the abort).
    calls[0]!.resolve('quote for 10');
    await vi.runAllTimersAsync();
    expect(last()).toEqual({ status: 'ready', output: 'quote for 20' });
    expect(states.filter((s) => s.status === 'ready')).toHaveLength(1);
  });

  it('an aborted or superseded request does not report an error; a current failure does', async () => {
    const { calls, scheduler, states, last } = setup();
    scheduler.schedule('10');
    await vi.advanceTimersByTimeAsync(500);
    scheduler.schedule('20');
    calls[0]!.reject(new DOMException('aborted', 'AbortError'));
    await vi.runAllTimersAsync();
    expect(states.some((s) => s.status === 'error')).toBe(false);
    calls[1]!.reject(new Error('provider down'));
    await vi.runAllTimersAsync();
    expect(last()).toMatchObject({ status: 'error', error: new Error('provider down') });
  });

  it('null clears the quote and cancels a pending request', async () => {
    const { calls, scheduler, last } = setup();
    scheduler.schedule('10');
    scheduler.schedule(null);
    expect(last()).toEqual({ status: 'idle' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(0);
  });

  it('immediate skips the delay (a refresh after the quote expired)', async () => {
    const { calls, scheduler } = setup();
    scheduler.schedule('10', { immediate: true });
    expect(calls.map((c) => c.input)).toEqual(['10']);
  });

  it('after dispose nothing is reported', async () => {
    const { calls, scheduler, states } = setup();
    scheduler.schedule('10');
    await vi.advanceTimersByTimeAsync(500);
    scheduler.dispose();
    expect(calls[0]!.signal.aborted).toBe(true);
    calls[0]!.resolve('late');
    await vi.runAllTimersAsync();
    expect(states).toEqual([{ status: 'loading' }]);
  });
});
