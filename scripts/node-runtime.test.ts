/**
 * One Node floor: `engines`, the pinned `node` devDependency the suite runs on, `@types/node`, the Dockerfile
 * and the README agree, every installed package accepts that Node (npm install prints no EBADENGINE), and the
 * tests themselves run on it (oidc-provider prints "Unsupported runtime" below Node 22 LTS).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { nodeRuntimeProblem, readNodePins } from './lib/node-runtime.mts';

const pins = readNodePins();
const packageJson = JSON.parse(readFileSync('package.json', 'utf8')) as { devDependencies: Record<string, string> };
const floorMinimum = semver.minVersion(pins.floor)!.version;

describe('the Node floor', () => {
  it('is Node 22 LTS, pinned exactly, and typed for that major', () => {
    expect(semver.minVersion(pins.floor)!.major).toBe(22);
    expect(semver.valid(pins.pinned)).toBe(pins.pinned);
    expect(semver.satisfies(pins.pinned, pins.floor)).toBe(true);
    expect(semver.major(semver.minVersion(packageJson.devDependencies['@types/node']!)!)).toBe(22);
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^ARG NODE_VERSION=22$/m);
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toContain(`Node ${floorMinimum.replace(/\.0$/, '')} or newer`);
    expect(readme).toContain(`Node ${pins.pinned}`);
  });

  it('is accepted by every package npm installs here (no EBADENGINE at the floor or at the pin)', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
      packages: Record<string, { engines?: { node?: string }; os?: string[]; cpu?: string[] }>;
    };
    const installedHere = (entry: { os?: string[]; cpu?: string[] }) =>
      (!entry.os || entry.os.includes(process.platform)) && (!entry.cpu || entry.cpu.includes(process.arch));
    const refusing = (version: string) =>
      Object.entries(lock.packages)
        .filter(([, entry]) => installedHere(entry) && entry.engines?.node && !semver.satisfies(version, entry.engines.node))
        .map(([name, entry]) => `${name || 'chargeport'} wants node ${entry.engines!.node}`);
    expect(refusing(floorMinimum)).toEqual([]);
    expect(refusing(pins.pinned)).toEqual([]);
    // The check sees what Node 20 would be refused (pg-boss and others ask for >= 22.12).
    expect(refusing('20.20.2').length).toBeGreaterThan(0);
  });

  it('refuses to run the suite below the floor, and names the way out', () => {
    expect(nodeRuntimeProblem('20.20.2', pins)).toMatch(/below the project's floor.*npm install/);
    expect(nodeRuntimeProblem('22.12.0', pins)).toBeDefined();
    expect(nodeRuntimeProblem(floorMinimum, pins)).toBeUndefined();
    expect(nodeRuntimeProblem(pins.pinned, pins)).toBeUndefined();
    expect(nodeRuntimeProblem('24.11.0', pins)).toBeUndefined();
  });

  it('is the Node these tests run on, and oidc-provider accepts it', () => {
    expect(nodeRuntimeProblem(process.versions.node, pins)).toBeUndefined();
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('oidc-provider')"], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(child.status).toBe(0);
    expect(child.stderr).not.toContain('Unsupported runtime');
  });
});
