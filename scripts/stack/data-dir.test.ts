import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultDataDir, resolveDataDir } from './data-dir';
import { writeRuntimeInfo } from './runtime-file';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): { project: string; state: string; environment: Record<string, string> } {
  const base = mkdtempSync(path.join(tmpdir(), 'chargeport-data-dir-'));
  made.push(base);
  const project = path.join(base, 'my checkout');
  mkdirSync(project);
  return { project, state: path.join(base, 'state'), environment: { XDG_STATE_HOME: path.join(base, 'state') } };
}

describe('the data directory', () => {
  it('defaults to one outside the project, under the state directory, named after the project and keyed by its path', () => {
    const { project, state, environment } = scratch();
    const dir = resolveDataDir({ projectRoot: project, environment });
    expect(dir.startsWith(`${state}/chargeport/my_checkout-`)).toBe(true);
    expect(path.relative(project, dir).startsWith('..')).toBe(true);
    expect(defaultDataDir(path.join(project, '..', 'other'), environment)).not.toBe(dir);
    // Without XDG_STATE_HOME: ~/.local/state.
    expect(defaultDataDir(project, { HOME: '/home/someone' })).toMatch(
      /^\/home\/someone\/\.local\/state\/chargeport\/my_checkout-[0-9a-f]{12}$/,
    );
  });

  it('honours DATA_DIR, relative to the project', () => {
    const { project, environment } = scratch();
    expect(resolveDataDir({ projectRoot: project, environment: { ...environment, DATA_DIR: 'here' } })).toBe(path.join(project, 'here'));
  });

  it("keeps using a .data from before, and `npm run dev` (migrate) moves the stack's entries out, once, saying so", () => {
    const { project, environment } = scratch();
    const legacy = path.join(project, '.data');
    mkdirSync(path.join(legacy, 'anvil'), { recursive: true });
    writeFileSync(path.join(legacy, 'anvil', 'POLYGON.json'), '{}');
    writeFileSync(path.join(legacy, 'dev-secrets.json'), '{"AUTH_SECRET":"x"}');
    mkdirSync(path.join(legacy, 'test-results'));
    expect(resolveDataDir({ projectRoot: project, environment })).toBe(legacy);

    const lines: string[] = [];
    const moved = resolveDataDir({ projectRoot: project, environment, migrate: true, log: (line) => lines.push(line) });
    expect(moved).toBe(defaultDataDir(project, environment));
    expect(readFileSync(path.join(moved, 'dev-secrets.json'), 'utf8')).toContain('AUTH_SECRET');
    expect(existsSync(path.join(moved, 'anvil', 'POLYGON.json'))).toBe(true);
    expect(existsSync(path.join(legacy, 'anvil'))).toBe(false);
    expect(existsSync(path.join(legacy, 'test-results'))).toBe(true);
    expect(lines).toEqual([expect.stringContaining(`Moved the data in ${legacy} to ${moved}`)]);
    // Moved once: the next start uses the new place without a word.
    expect(resolveDataDir({ projectRoot: project, environment, migrate: true, log: (line) => lines.push(line) })).toBe(moved);
    expect(lines).toHaveLength(1);
  });

  it('does not move a .data a stack is running from: it warns and uses it', () => {
    const { project, environment } = scratch();
    const legacy = path.join(project, '.data');
    mkdirSync(path.join(legacy, 'anvil'), { recursive: true });
    writeRuntimeInfo(legacy, { launcherPid: process.pid, startedAt: new Date().toISOString(), localRpcUrls: {} });
    const lines: string[] = [];
    expect(resolveDataDir({ projectRoot: project, environment, migrate: true, log: (line) => lines.push(line) })).toBe(legacy);
    expect(lines).toEqual([expect.stringMatching(/^WARNING: .*Not moved \(a stack is running from it\)/)]);
    expect(existsSync(path.join(legacy, 'anvil'))).toBe(true);
  });
});
