/**
 * Starts what the app depends on, using embedded defaults for whatever is not configured: PostgreSQL
 * (our embedded-postgres driver) when DATABASE_URL is unset, and a local node for each chain in `chains` — anvil
 * for an EVM chain, a LiteSVM cluster for a Solana one (local-solana.ts) — (the launcher decides which:
 * scripts/stack/chain-plan.ts). Migrations are applied. Used by the launcher, the
 * admin CLI and tests.
 */
import path from 'node:path';
import { CHAINS, type ChainName } from '@/lib/chains/registry';
import { localSolanaDemoPayerAccount } from '@/lib/keyring/local-solana-accounts';
import { rpcEnvName } from '@/lib/env';
import { migrateDatabase } from '@/lib/admin/migrate-database';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres';
import { sandboxProviderAccount } from '@/lib/sandbox-provider/account';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from './local-chain';
import { fundLocalSolanaWallet, startLocalSolanaCluster } from './local-solana';

export interface Stack {
  databaseUrl: string;
  embeddedDatabase?: EmbeddedDatabase;
  localChains: LocalChainNode[];
  /** Environment variables the app process needs (DATABASE_URL, RPC_URL_*). */
  env: Record<string, string>;
  /** Stops everything started, in parallel; each part is forced when it does not stop in time. */
  stop(): Promise<void>;
}

export async function startStack(options: {
  dataDir: string;
  env: Record<string, string | undefined>;
  /** Chains to run on local nodes (anvil, or a LiteSVM cluster for Solana); none by default. */
  chains?: readonly ChainName[];
  persistent?: boolean;
  /** Extra settings for an embedded PostgreSQL (embedded-postgres.ts); ignored with DATABASE_URL. */
  postgresSettings?: readonly string[];
  log?: (line: string) => void;
}): Promise<Stack> {
  const log = options.log ?? (() => {});
  const stopFns: (() => Promise<void>)[] = [];
  const stop = async () => {
    await Promise.allSettled(stopFns.splice(0).map((fn) => fn()));
  };
  try {
    let databaseUrl = options.env.DATABASE_URL;
    let embeddedDatabase: EmbeddedDatabase | undefined;
    if (!databaseUrl) {
      embeddedDatabase = await startEmbeddedPostgres({
        dataDir: options.dataDir,
        persistent: options.persistent,
        isProduction: options.env.NODE_ENV === 'production',
        ...(options.postgresSettings ? { serverSettings: options.postgresSettings } : {}),
        log: (line) => (line.startsWith('WARNING') || line.includes('copied to') ? log(line) : undefined),
      });
      stopFns.push(() => embeddedDatabase!.stop());
      databaseUrl = embeddedDatabase.url;
      log(`PostgreSQL (embedded) on ${new URL(databaseUrl).host}, data in ${embeddedDatabase.clusterDir}`);
    }
    await migrateDatabase(databaseUrl);

    const localChains: LocalChainNode[] = [];
    const env: Record<string, string> = { DATABASE_URL: databaseUrl };
    const wanted = options.chains ?? [];
    const stateDir = (kind: string) => (options.persistent === false ? undefined : path.join(options.dataDir, kind));
    // allSettled: every node that did start is registered for stopping before a failure is thrown.
    const outcomes = await Promise.allSettled(
      wanted.map(async (chain) => {
        const node =
          CHAINS[chain].family === 'solana'
            ? await startLocalSolanaCluster({ chain, stateDir: stateDir('solana') })
            : await startLocalChain({ chain, stateDir: stateDir('anvil') });
        stopFns.push(() => node.stop());
        return node;
      }),
    );
    const failed = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const started = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    for (const node of started) {
      localChains.push(node);
      env[rpcEnvName(node.chain)] = node.url;
    }
    await Promise.all(
      started.map(async (node) => {
        // The cluster plants its SPL mints itself; the demo payer's wallet is funded as on the EVM nodes.
        if (CHAINS[node.chain].family === 'solana') {
          await fundLocalSolanaWallet({ chain: node.chain, url: node.url, address: localSolanaDemoPayerAccount.address });
          return;
        }
        await provisionLocalChain({ chain: node.chain, url: node.url });
        // The sandbox on-ramp provider delivers purchases from its own account: topped up on every start,
        // so a chain restored from its state file is covered too.
        await fundLocalWallet({ chain: node.chain, url: node.url, address: sandboxProviderAccount.address });
      }),
    );
    if (started.length) {
      env.LOCAL_CHAINS = started.map((node) => node.chain).join(',');
      const listed = (family: string) =>
        started
          .filter((node) => CHAINS[node.chain].family === family)
          .map((n) => `${n.chain} ${n.url}`)
          .join(', ');
      if (listed('evm')) log(`Local chains (anvil): ${listed('evm')}`);
      if (listed('solana')) log(`Local Solana clusters (LiteSVM, a slot every 400 ms): ${listed('solana')}`);
    }
    return { databaseUrl, embeddedDatabase, localChains, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
