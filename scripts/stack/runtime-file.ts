/**
 * `.data/runtime.json`: where the embedded services of a running stack listen. The launcher writes
 * it; the admin CLI and test helpers read it to reach the same database and chains.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChainName } from '@/lib/chains/registry';

export interface RuntimeInfo {
  launcherPid: number;
  startedAt: string;
  appUrl?: string;
  /** Set when the launcher started the embedded PostgreSQL. */
  embeddedDatabaseUrl?: string;
  embeddedPostgresPid?: number;
  /** Chains served by a local node started by the launcher. */
  localRpcUrls: Partial<Record<ChainName, string>>;
}

function runtimeFilePath(dataDir: string): string {
  return path.join(dataDir, 'runtime.json');
}

export function writeRuntimeInfo(dataDir: string, info: RuntimeInfo): void {
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(runtimeFilePath(dataDir), `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
}

export function readRuntimeInfo(dataDir: string): RuntimeInfo | undefined {
  const file = runtimeFilePath(dataDir);
  if (!existsSync(file)) return undefined;
  try {
    const info = JSON.parse(readFileSync(file, 'utf8')) as RuntimeInfo;
    return isProcessAlive(info.launcherPid) ? info : undefined;
  } catch {
    return undefined;
  }
}

export function removeRuntimeInfo(dataDir: string): void {
  rmSync(runtimeFilePath(dataDir), { force: true });
}

export function isProcessAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * What a tool sets to read a running stack's local chains as the stack's own processes do: each chain's
 * URL (unless the tool has one of its own for it) and LOCAL_CHAINS for those, so it counts one
 * confirmation as they do (without it `admin reconcile` compared POLYGON 29 blocks behind the head, and
 * nothing the last journeys did). Only the values to add; the caller's own settings win.
 */
export function localChainEnv(info: RuntimeInfo | undefined, env: Record<string, string | undefined>): Record<string, string> {
  const added: Record<string, string> = {};
  const local: string[] = [];
  for (const [chain, url] of Object.entries(info?.localRpcUrls ?? {})) {
    const name = `RPC_URL_${chain}`;
    if (env[name] && env[name] !== url) continue;
    if (!env[name]) added[name] = url;
    local.push(chain);
  }
  if (local.length && !env.LOCAL_CHAINS) {
    added.LOCAL_CHAINS = local.join(',');
    // The launcher started them, so the stack runs with local nodes on (lib/env.ts refuses LOCAL_CHAINS otherwise).
    if (!env.LOCAL_CHAIN_NODES) added.LOCAL_CHAIN_NODES = 'true';
  }
  return added;
}
