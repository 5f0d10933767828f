/**
 * `npm run dev` funds the demo consumer's service wallet on the local chains; the ledger must know of it, or
 * every reconciliation logs "ledger and chain disagree" for that wallet. The launcher sends the native coin on
 * the record (a transaction the wallet indexer records as an inflow, like any other) and mints the tokens.
 * Checked on a private node and database, seeded and funded as the launcher does, with both scanners run as
 * the background jobs would; a wallet topped up off the record (anvil_setBalance) shows that reconciliation is live.
 */
import { createPublicClient, http, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetEnvCache } from '@/lib/env';
import { CHAINS } from '@/lib/chains/registry';
import { seedDemoData } from '@/lib/admin/seed-demo';
import { getDb } from '@/lib/db/client';
import { createWalletsForUser } from '@/lib/keyring/create-wallets';
import { newUser } from '@/test/accounts';
import { pollChain } from '@/lib/payments/poll-chain';
import { pollIncomingTransfers } from '@/lib/wallets/poll-incoming-transfers';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from '@/scripts/stack/local-chain';
import { switchToPrivateDatabase } from '@/test/private-database';
import { reconcileChain } from './reconcile-chains';

// A chain with an ERC-20: a wallet enters reconciliation once the ledger has an entry for it (the token minted).
const CHAIN = 'POLYGON' as const;
const NATIVE = CHAINS[CHAIN].tokens.find((token) => token.isNative)!.symbol;
let node: LocalChainNode;

beforeAll(async () => {
  await switchToPrivateDatabase('demo_funding');
  node = await startLocalChain({ chain: CHAIN });
  await provisionLocalChain({ chain: CHAIN, url: node.url });
  process.env.RPC_URL_POLYGON = node.url;
  process.env.LOCAL_CHAINS = 'POLYGON,POLYGON_AMOY';
  resetEnvCache();
});

afterAll(async () => {
  await node.stop();
});

describe('the demo funding of npm run dev', () => {
  it("is in the ledger: reconciliation finds no disagreement for the demo consumer's wallet", async () => {
    const { consumerWallets } = await seedDemoData();
    const consumer = consumerWallets.find((wallet) => wallet.family === 'evm')!.address as Address;
    // As scripts/stack.mts funds it.
    await fundLocalWallet({ chain: CHAIN, url: node.url, address: consumer, onTheRecord: true });
    // Control: another user's wallet topped up off the record.
    const created = await createWalletsForUser(getDb(), await newUser());
    const other = created.find((wallet) => wallet.family === 'evm')!.address as Address;
    await fundLocalWallet({ chain: CHAIN, url: node.url, address: other });

    // The background jobs — the charge watcher and the wallet indexer — until reconciliation reaches the head
    // (the shared client caches the head for a few seconds).
    const head = await createPublicClient({ transport: http(node.url) }).getBlockNumber({ cacheTime: 0 });
    let result = await reconcileChain(CHAIN);
    for (let i = 0; i < 30 && (result.atBlock ?? -1n) < head; i++) {
      await pollChain(CHAIN);
      await pollIncomingTransfers(CHAIN);
      result = await reconcileChain(CHAIN);
      if ((result.atBlock ?? -1n) < head) await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(result.atBlock).toBe(head);
    expect(result.error).toBeUndefined();
    const about = (address: string) => result.discrepancies.filter((d) => d.address.toLowerCase() === address.toLowerCase());
    expect(about(consumer)).toEqual([]);
    expect(about(other).map((d) => d.symbol)).toEqual([NATIVE]);
  });
});
