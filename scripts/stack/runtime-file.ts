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
