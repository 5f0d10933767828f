/**
 * New Solana slots as they arrive, the Solana twin of ./new-blocks.ts: one WebSocket `slotSubscribe` per
 * Solana chain that has a WebSocket URL (RPC_WS_URL_SOLANA / _DEVNET, or a local cluster's own port), per
 * process. Each slot calls `onSlot(chain)`, which wakes the chain's block reader (scheduler.ts,
 * lib/payments/solana/read-solana-blocks.ts); the intervals stay as the fallback and the catch-up, so a lost
 * subscription only makes detection slower, never incomplete. A lost or refused subscription is opened again
 * with back-off (1 s doubling to 30 s), on a fresh socket; there is never more than one per chain in a process.
 */
import { createSolanaRpcSubscriptions } from '@solana/kit';
import type { ChainName } from '@/lib/chains/registry';
import { rpcWsUrl } from '@/lib/env';
import { log } from '@/lib/log';
import type { BlockSubscriptions } from './new-blocks';

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export function subscribeToNewSlots(
  chains: readonly ChainName[],
  onSlot: (chain: ChainName, slot: bigint) => void,
  options: { firstRetryMs?: number } = {},
): BlockSubscriptions {
  const connected = new Set<ChainName>();
  const stops: (() => void)[] = [];
  for (const chain of chains) {
    const url = rpcWsUrl(chain);
    if (!url) continue;
    stops.push(subscribeChain(chain, url, onSlot, connected, options.firstRetryMs ?? FIRST_RETRY_MS));
  }
  return {
    connected,
    stop: () => {
      for (const stop of stops) stop();
    },
  };
}

function subscribeChain(
  chain: ChainName,
  url: string,
  onSlot: (chain: ChainName, slot: bigint) => void,
  connected: Set<ChainName>,
  firstRetryMs: number,
): () => void {
  let stopped = false;
  let retryMs = firstRetryMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let current: AbortController | undefined;

  const open = () => {
    if (stopped) return;
    const controller = new AbortController();
    current = controller;
    void (async () => {
      try {
        // A new client per attempt: its channel (one socket) closes once this subscription is aborted or lost.
        const subscriptions = createSolanaRpcSubscriptions(url);
        const slots = await subscriptions.slotNotifications().subscribe({ abortSignal: controller.signal });
        for await (const notification of slots) {
          if (!connected.has(chain)) {
            connected.add(chain);
            retryMs = firstRetryMs;
          }
          onSlot(chain, notification.slot);
        }
        throw new Error('the slot subscription ended');
      } catch (error) {
        if (stopped || controller.signal.aborted) return;
        log.warn('new-slot subscription lost; polling until it is back', { chain, retryInMs: retryMs, error: String(error) });
        connected.delete(chain);
        controller.abort();
        retryTimer = setTimeout(open, retryMs);
        retryTimer.unref();
        retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
      }
    })();
  };

  open();
  return () => {
    stopped = true;
    if (retryTimer) clearTimeout(retryTimer);
    connected.delete(chain);
    current?.abort();
  };
}
