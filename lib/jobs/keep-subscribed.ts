/**
 * The reconnect loop shared by ./new-blocks.ts (EVM `newHeads`) and ./new-slots.ts (Solana `slotSubscribe`):
 * one subscription per chain that has a WebSocket URL (RPC_WS_URL_<CHAIN>, or a local node's own port), per
 * process. A lost or refused subscription is closed and opened again with back-off (1 s doubling to 30 s, back
 * to the first step once one delivers); there is never more than one per chain in a process. The callers only
 * say how to open one attempt and what it delivers.
 */
import type { ChainName } from '@/lib/chains/registry';
import { rpcWsUrl } from '@/lib/env';
import { log } from '@/lib/log';

export interface BlockSubscriptions {
  /** Chains whose subscription has delivered a block since it last (re)opened. */
  readonly connected: ReadonlySet<ChainName>;
  stop(): void;
}

/** What one attempt reports back: each value it delivers, and its loss (an error, or the stream's end). */
interface SubscriptionAttempt<T> {
  deliver(value: T): void;
  lose(error: unknown): void;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

interface KeepSubscribedOptions<T> {
  chains: readonly ChainName[];
  /** Starts one attempt on `url`; returns what closes it. */
  open: (url: string, attempt: SubscriptionAttempt<T>) => () => void;
  /** Gets every value an attempt delivers. */
  onValue: (chain: ChainName, value: T) => void;
  /** The warning logged at each loss. */
  lostMessage: string;
  firstRetryMs?: number;
}

/** Keeps one subscription per chain open until stop(). */
export function keepSubscribed<T>(options: KeepSubscribedOptions<T>): BlockSubscriptions {
  const connected = new Set<ChainName>();
  const stops: (() => void)[] = [];
  for (const chain of options.chains) {
    const url = rpcWsUrl(chain);
    if (!url) continue;
    stops.push(keepChainSubscribed(chain, url, connected, options));
  }
  return {
    connected,
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}

function keepChainSubscribed<T>(chain: ChainName, url: string, connected: Set<ChainName>, options: KeepSubscribedOptions<T>): () => void {
  const firstRetryMs = options.firstRetryMs ?? FIRST_RETRY_MS;
  let stopped = false;
  let retryMs = firstRetryMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let current: { close: () => void } | undefined;

  const close = () => {
    connected.delete(chain);
    if (!current) return;
    const attempt = current;
    current = undefined;
    attempt.close();
  };

  const open = () => {
    if (stopped) return;
    // In effect before open() returns, so that a loss reported at once (a synchronous throw) still counts.
    const attempt: { close: () => void } = { close: () => {} };
    current = attempt;
    const closeAttempt = options.open(url, {
      deliver: (value) => {
        if (!connected.has(chain)) {
          connected.add(chain);
          retryMs = firstRetryMs;
        }
        options.onValue(chain, value);
      },
      lose: (error) => {
        // Only the attempt in effect counts: a closed one's late errors change nothing.
        if (stopped || current !== attempt) return;
        log.warn(options.lostMessage, { chain, retryInMs: retryMs, error: String(error) });
        close();
        retryTimer = setTimeout(open, retryMs);
        retryTimer.unref();
        retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
      },
    });
    if (current === attempt) attempt.close = closeAttempt;
    else closeAttempt();
  };

  open();
  return () => {
    stopped = true;
    if (retryTimer) clearTimeout(retryTimer);
    close();
  };
}
