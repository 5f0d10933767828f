/**
 * `npm run admin -- reconcile` against the e2e stack, for the suite's global set-up and teardown: the same
 * command an operator runs (scripts/admin.mts → lib/ledger/reconcile-chains.ts), in a child process, on the
 * stack's embedded database (its runtime file) and its local chains and Solana clusters, with its keys.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ChainName } from '@/lib/chains/registry';
import { E2E_DATA_DIR, E2E_SECRETS } from '../playwright.config';

type Difference = {
  chain: string;
  address: string;
  holder: string;
  symbol: string;
  decimals: number;
  expected: string;
  actual: string;
  difference: string;
  chargeIds: string[];
};
export type Reconciliation = {
  chain: ChainName;
  atBlock: string | null;
  checked: number;
  busy: number;
  discrepancies: Difference[];
  error?: string;
};

/** The running e2e stack's local nodes, or undefined when it never started (Playwright failed before it). */
export function e2eStackNodes(): Partial<Record<ChainName, string>> | undefined {
  const file = path.join(E2E_DATA_DIR, 'runtime.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { localRpcUrls: Partial<Record<ChainName, string>> }).localRpcUrls;
}

/** One run of the admin CLI's reconcile (its exit code is 1 when something differs: the JSON says what). */
export function reconcileE2eStack(): Reconciliation[] {
  const run = spawnSync('node_modules/.bin/tsx', ['--conditions=react-server', 'scripts/admin.mts', 'reconcile', '--json'], {
    env: {
      ...process.env,
      DATA_DIR: E2E_DATA_DIR,
      DATABASE_URL: '',
      WALLET_MASTER_KEY: E2E_SECRETS.WALLET_MASTER_KEY,
      DEPOSIT_HD_SEED: E2E_SECRETS.DEPOSIT_HD_SEED,
      // Info lines go to stdout, where --json writes the answer (warnings and errors go to stderr).
      LOG_LEVEL: 'warn',
    },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0 && run.status !== 1) throw new Error(`admin reconcile exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as Reconciliation[];
}

/** One line per chain, as the admin CLI prints them. */
export function summary(results: Reconciliation[]): string {
  return results
    .map((r) =>
      r.error
        ? `  ${r.chain}: not reconciled (${r.error})`
        : `  ${r.chain} at block ${r.atBlock}: ${r.checked} balances checked, ${r.busy} skipped (transfers on their way), ${r.discrepancies.length} differ`,
    )
    .join('\n');
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
