/**
 * Debounced, latest-only requests for the on-ramp quote: a request starts `delayMs` after the last
 * change, a newer change aborts the one in flight, and an answer that arrives after a newer request was
 * scheduled is dropped, so a slow stale quote never replaces a fresh one. Framework-free so it can be
 * tested with fake timers (app/onramp/quote-scheduler.test.ts).
 */

export type ScheduledState<Output> =
  | { status: 'idle' }
  /** Waiting for the user to stop typing, or for the answer. */
  | { status: 'loading' }
  | { status: 'ready'; output: Output }
  | { status: 'error'; error: unknown };

export interface QuoteScheduler<Input> {
  /** A new input (null: nothing to ask, e.g. an empty amount). Supersedes everything before it. */
  schedule(input: Input | null, options?: { immediate?: boolean }): void;
  /** Stops timers and aborts the request in flight; later answers are ignored. */
  dispose(): void;
}

export function createQuoteScheduler<Input, Output>(options: {
  delayMs: number;
  run: (input: Input, signal: AbortSignal) => Promise<Output>;
  onState: (state: ScheduledState<Output>) => void;
}): QuoteScheduler<Input> {
  let sequence = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let controller: AbortController | undefined;

  const cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    controller?.abort();
    controller = undefined;
  };

  const start = (input: Input, mine: number) => {
    timer = undefined;
    const current = new AbortController();
    controller = current;
    options.run(input, current.signal).then(
      (output) => {
        if (mine === sequence) options.onState({ status: 'ready', output });
      },
      (error: unknown) => {
        if (mine === sequence && !current.signal.aborted) options.onState({ status: 'error', error });
      },
    );
  };

  return {
    schedule(input, { immediate = false } = {}) {
      cancel();
      const mine = ++sequence;
      if (input === null) {
        options.onState({ status: 'idle' });
        return;
      }
      options.onState({ status: 'loading' });
      if (immediate) start(input, mine);
      else timer = setTimeout(() => start(input, mine), options.delayMs);
    },
    dispose() {
      sequence++;
      cancel();
    },
  };
}
