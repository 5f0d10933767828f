/**
 * Starts what the app depends on, using embedded defaults for whatever is not configured: PostgreSQL
 * (our embedded-postgres driver) when DATABASE_URL is unset, and an anvil node for each chain in `chains`
 * (the launcher decides which: scripts/stack/chain-plan.ts). Migrations are applied. Used by the launcher, the
 * admin CLI and tests.
 */
import path from 'node:path';
import { EVM_CHAIN_NAMES, type ChainName } from '@/lib/chains/registry';
import { rpcEnvName } from '@/lib/env';
import { migrateDatabase } from '@/lib/admin/migrate-database';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres';
import { sandboxProviderAccount } from '@/lib/sandbox-provider/account';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from './local-chain';

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
  /** EVM chains to run on local nodes; none by default. */
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
    const wanted = (options.chains ?? []).filter((chain) => EVM_CHAIN_NAMES.includes(chain));
    // allSettled: every node that did start is registered for stopping before a failure is thrown.
    const outcomes = await Promise.allSettled(
      wanted.map(async (chain) => {
        const node = await startLocalChain({
          chain,
          stateDir: options.persistent === false ? undefined : path.join(options.dataDir, 'anvil'),
        });
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
        await provisionLocalChain({ chain: node.chain, url: node.url });
        // The sandbox on-ramp provider delivers purchases from its own account: topped up on every start,
        // so a chain restored from its state file is covered too.
        await fundLocalWallet({ chain: node.chain, url: node.url, address: sandboxProviderAccount.address });
      }),
    );
    if (started.length) {
      env.LOCAL_CHAINS = started.map((node) => node.chain).join(',');
      log(`Local chains (anvil): ${started.map((n) => `${n.chain} ${n.url}`).join(', ')}`);
    }
    return { databaseUrl, embeddedDatabase, localChains, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
