/**
 * New Solana slots as they arrive, the Solana twin of ./new-blocks.ts: one WebSocket `slotSubscribe` per
 * Solana chain that has a WebSocket URL (RPC_WS_URL_SOLANA / _DEVNET, or a local cluster's own port), per
 * process. Each slot calls `onSlot(chain)`, which wakes the chain's block reader (scheduler.ts,
 * lib/payments/solana/read-solana-blocks.ts); the intervals stay as the fallback and the catch-up, so a lost
 * subscription only makes detection slower, never incomplete. A lost or refused subscription is opened again
 * with back-off (1 s doubling to 30 s), on a fresh socket; there is never more than one per chain in a process
 * (./keep-subscribed.ts).
 */
import { createSolanaRpcSubscriptions } from '@solana/kit';
import type { ChainName } from '@/lib/chains/registry';
import { keepSubscribed, type BlockSubscriptions } from './keep-subscribed';

export function subscribeToNewSlots(
  chains: readonly ChainName[],
  onSlot: (chain: ChainName, slot: bigint) => void,
  options: { firstRetryMs?: number } = {},
): BlockSubscriptions {
  return keepSubscribed<bigint>({
    chains,
    onValue: onSlot,
    lostMessage: 'new-slot subscription lost; polling until it is back',
    firstRetryMs: options.firstRetryMs,
    open: (url, attempt) => {
      const controller = new AbortController();
      void (async () => {
        try {
          // A new client per attempt: its channel (one socket) closes once this subscription is aborted or lost.
          const subscriptions = createSolanaRpcSubscriptions(url);
          const slots = await subscriptions.slotNotifications().subscribe({ abortSignal: controller.signal });
          for await (const notification of slots) attempt.deliver(notification.slot);
          throw new Error('the slot subscription ended');
        } catch (error) {
          attempt.lose(error);
        }
      })();
      return () => controller.abort();
    },
  });
}
