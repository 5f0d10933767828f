/**
 * New blocks as they arrive: one WebSocket `newHeads` subscription per EVM chain that has a WebSocket URL
 * (RPC_WS_URL_<CHAIN>, or a local node's own port), per process. Each new block calls `onBlock(chain)`,
 * which wakes the chain's watcher (scheduler.ts); the watcher's interval stays as the fallback and the
 * catch-up, so a lost subscription only makes detection slower, never incomplete. A lost or refused
 * subscription is opened again with back-off (1 s doubling to 30 s); there is never more than one per
 * chain in a process (./keep-subscribed.ts).
 */
import { createPublicClient, webSocket } from 'viem';
import type { ChainName } from '@/lib/chains/registry';
import { keepSubscribed, type BlockSubscriptions } from './keep-subscribed';

export function subscribeToNewBlocks(
  chains: readonly ChainName[],
  onBlock: (chain: ChainName, blockNumber: bigint) => void,
  options: { firstRetryMs?: number } = {},
): BlockSubscriptions {
  return keepSubscribed<bigint>({
    chains,
    onValue: onBlock,
    lostMessage: 'new-block subscription lost; polling until it is back',
    firstRetryMs: options.firstRetryMs,
    open: (url, attempt) => {
      // A WebSocket transport makes watchBlockNumber subscribe (newHeads) rather than poll. viem's own
      // reconnect gives up after a few attempts: the back-off of keepSubscribed never does.
      const client = createPublicClient({
        transport: webSocket(url, { reconnect: false, keepAlive: { interval: 30_000 }, timeout: 10_000 }),
      });
      const unwatch = client.watchBlockNumber({ onBlockNumber: attempt.deliver, onError: attempt.lose });
      return () => {
        unwatch();
        // viem keeps sockets by URL: closing removes this one, so the next attempt opens a fresh socket.
        void (client.transport as unknown as { getRpcClient: () => Promise<{ close: () => void }> })
          .getRpcClient()
          .then((socket) => socket.close())
          .catch(() => {});
      };
    },
  });
}
