/**
 * Vitest global setup: one real PostgreSQL (embedded, in a throwaway directory, fresh each run) and
 * local anvil nodes for POLYGON and its test network, shared by every test file. Tests isolate
 * themselves by creating their own merchants.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { fundLocalWallet } from '@/scripts/stack/local-chain';
import { startStack, type Stack } from '@/scripts/stack/stack';
import { gasTankAccountFromSeed } from '@/lib/transactions/gas-tank-key';
import { TEST_SECRETS } from './test-secrets';

declare module 'vitest' {
  export interface ProvidedContext {
    stackEnv: Record<string, string>;
    dataDir: string;
  }
}

let stack: Stack | undefined;
let dataDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  dataDir = mkdtempSync(path.join(tmpdir(), 'chargeport-test-'));
  stack = await startStack({
    dataDir,
    env: {},
    chains: ['POLYGON', 'POLYGON_AMOY'],
    persistent: false,
  });
  const gasTank = gasTankAccountFromSeed(TEST_SECRETS.DEPOSIT_HD_SEED).address;
  await Promise.all(stack.localChains.map((node) => fundLocalWallet({ chain: node.chain, url: node.url, address: gasTank })));
  project.provide('stackEnv', stack.env);
  project.provide('dataDir', dataDir);
}

export async function teardown(): Promise<void> {
  await stack?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
