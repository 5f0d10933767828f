/**
 * What the production artefacts weigh (`npm run size`, scripts/artefact-size.mts): the standalone server folder
 * (`.next/standalone`, the `app` image's content), its largest packages, and which Dockerfile stage copies what.
 * The standalone app must stay under STANDALONE_AIM_BYTES and must not carry the anvil binary: development parts
 * (local chains, embedded PostgreSQL, the LiteSVM test validator) are kept out by next.config.mjs's
 * outputFileTracingExcludes (docs/operations.md, "Artefact size").
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** The aim of issue 31: a standalone app under 60 MiB. */
export const STANDALONE_AIM_BYTES = 60 * 1024 * 1024;

/**
 * Copies `npm start` puts into the standalone folder at start (scripts/stack/next-server.ts): the image copies
 * them in a layer of their own, so they are not counted as the server's weight.
 */
const START_COPIES = ['.next/static', 'public'];

/** Bytes of the files under `dir` (symbolic links counted as links, never followed). */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(full);
    else total += lstatSync(full).size;
  }
  return total;
}

export interface PackageSize {
  /** Path of the package below the standalone folder, e.g. `node_modules/next` or `node_modules/a/node_modules/@b/c`. */
  name: string;
  bytes: number;
}

/** Every package in `node_modules` below `root` (nested ones listed on their own, not inside their parent's size). */
export function packageSizes(root: string, nodeModules = 'node_modules'): PackageSize[] {
  const dir = path.join(root, nodeModules);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const packages: PackageSize[] = [];
  const add = (relative: string) => {
    const full = path.join(root, relative);
    let bytes = 0;
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      if (entry.name === 'node_modules' && entry.isDirectory()) continue;
      const child = path.join(full, entry.name);
      bytes += entry.isDirectory() ? folderBytes(child) : lstatSync(child).size;
    }
    packages.push({ name: relative, bytes });
    packages.push(...packageSizes(root, path.join(relative, 'node_modules')));
  };
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === '.bin') continue;
    if (entry.name.startsWith('@')) {
      for (const scoped of readdirSync(path.join(dir, entry.name), { withFileTypes: true })) {
        if (scoped.isDirectory()) add(path.join(nodeModules, entry.name, scoped.name));
      }
    } else add(path.join(nodeModules, entry.name));
  }
  return packages;
}

/** Files below `root` that are (or belong to) a development-only binary the app must never ship. */
export function forbiddenFiles(root: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.join(relative, entry.name);
      if (isForbidden(child)) found.push(child);
      else if (entry.isDirectory()) walk(child);
    }
  };
  walk('.');
  return found.map((file) => path.normalize(file));
}

/** The anvil package or binary (any platform's), matched on the path. */
export function isForbidden(relativePath: string): boolean {
  const parts = path.normalize(relativePath).split(path.sep);
  const base = parts.at(-1) ?? '';
  return parts.some((part) => part.startsWith('anvil') && parts.includes('@foundry-rs')) || base === 'anvil' || base === 'anvil.exe';
}

export interface StandaloneReport {
  /** The server's weight: the folder without the copies `npm start` adds (START_COPIES). */
  serverBytes: number;
  /** What the app stage adds beside it (`.next/static`, `public/`), measured from the build when present. */
  assetBytes: number;
  largest: PackageSize[];
  forbidden: string[];
}

export function measureStandalone(root: string, top = 15): StandaloneReport {
  const standalone = path.join(root, '.next/standalone');
  let serverBytes = folderBytes(standalone);
  for (const copy of START_COPIES) {
    try {
      serverBytes -= folderBytes(path.join(standalone, copy));
    } catch {
      // not copied yet (no `npm start` since the build)
    }
  }
  let assetBytes = 0;
  for (const source of START_COPIES) {
    try {
      assetBytes += folderBytes(path.join(root, source));
    } catch {
      // absent in this build
    }
  }
  const largest = packageSizes(standalone)
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
  return { serverBytes, assetBytes, largest, forbidden: forbiddenFiles(standalone) };
}

export interface DockerStage {
  name: string;
  from: string;
  /** `COPY` lines, as written (flags included). */
  copies: string[];
}

/** The stages of a Dockerfile and their COPY instructions (line continuations joined). */
export function dockerStages(dockerfile: string): DockerStage[] {
  const lines = dockerfile
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: DockerStage[] = [];
  for (const line of lines) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) {
      stages.push({ name: from[2] ?? String(stages.length), from: from[1]!, copies: [] });
      continue;
    }
    if (/^COPY\s/i.test(line) && stages.length > 0) stages.at(-1)!.copies.push(line.replace(/^COPY\s+/i, '').replace(/\s+/g, ' '));
  }
  return stages;
}

export function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
