/**
 * New blocks as they arrive: one WebSocket `newHeads` subscription per EVM chain that has a WebSocket URL
 * (RPC_WS_URL_<CHAIN>, or a local node's own port), per process. Each new block calls `onBlock(chain)`,
 * which wakes the chain's watcher (scheduler.ts); the watcher's interval stays as the fallback and the
 * catch-up, so a lost subscription only makes detection slower, never incomplete. A lost or refused
 * subscription is opened again with back-off (1 s doubling to 30 s); there is never more than one per
 * chain in a process.
 */
import { createPublicClient, webSocket, type PublicClient } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import { rpcWsUrl } from '@/lib/env';
import { log } from '@/lib/log';

export interface BlockSubscriptions {
  /** Chains whose subscription has delivered a block since it last (re)opened. */
  readonly connected: ReadonlySet<ChainName>;
  stop(): void;
}

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

export function subscribeToNewBlocks(
  chains: readonly ChainName[],
  onBlock: (chain: ChainName, blockNumber: bigint) => void,
  options: { firstRetryMs?: number } = {},
): BlockSubscriptions {
  const connected = new Set<ChainName>();
  const stops: (() => void)[] = [];
  for (const chain of chains) {
    const url = rpcWsUrl(chain);
    if (!url) continue;
    stops.push(subscribeChain(chain, url, onBlock, connected, options.firstRetryMs ?? FIRST_RETRY_MS));
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
  onBlock: (chain: ChainName, blockNumber: bigint) => void,
  connected: Set<ChainName>,
  firstRetryMs: number,
): () => void {
  let stopped = false;
  let retryMs = firstRetryMs;
  let retryTimer: NodeJS.Timeout | undefined;
  let current: { client: PublicClient; unwatch: () => void } | undefined;

  const close = () => {
    connected.delete(chain);
    if (!current) return;
    const { client, unwatch } = current;
    current = undefined;
    unwatch();
    // viem keeps sockets by URL: closing removes this one, so the next attempt opens a fresh socket.
    void (client.transport as unknown as { getRpcClient: () => Promise<{ close: () => void }> })
      .getRpcClient()
      .then((socket) => socket.close())
      .catch(() => {});
  };

  const open = () => {
    if (stopped) return;
    // A WebSocket transport makes watchBlockNumber subscribe (newHeads) rather than poll. viem's own
    // reconnect gives up after a few attempts: the back-off here never does.
    const client = createPublicClient({
      transport: webSocket(url, { reconnect: false, keepAlive: { interval: 30_000 }, timeout: 10_000 }),
    });
    const unwatch = client.watchBlockNumber({
      onBlockNumber: (blockNumber) => {
        if (!connected.has(chain)) {
          connected.add(chain);
          retryMs = firstRetryMs;
        }
        onBlock(chain, blockNumber);
      },
      onError: (error) => {
        if (stopped || current?.client !== client) return;
        log.warn('new-block subscription lost; polling until it is back', { chain, retryInMs: retryMs, error: String(error) });
        close();
        retryTimer = setTimeout(open, retryMs);
        retryTimer.unref();
        retryMs = Math.min(MAX_RETRY_MS, retryMs * 2);
      },
    });
    current = { client, unwatch };
  };

  open();
  return () => {
    stopped = true;
    if (retryTimer) clearTimeout(retryTimer);
    close();
  };
}
