/**
 * The tiers of lib/ hold by lint (`npm run lint:tiers`, .dependency-cruiser.mjs): these probes write the
 * imports a careless change would add into a scratch tree laid out like the repository, and check that
 * the configured rules refuse each one and accept the imports that point down.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cruise } from 'dependency-cruiser';
import { afterEach, describe, expect, it } from 'vitest';
import config, { TIERS } from '../.dependency-cruiser.mjs';

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** Writes `files` (path → the relative paths it imports) and returns the names of the rules they break. */
async function violations(files: Record<string, string[]>): Promise<{ rule: string; from: string; to: string }[]> {
  scratch = mkdtempSync(path.join(tmpdir(), 'tiers-'));
  for (const folder of ['app', 'components']) mkdirSync(path.join(scratch, folder));
  for (const [file, imports] of Object.entries(files)) {
    const at = path.join(scratch, file);
    mkdirSync(path.dirname(at), { recursive: true });
    const body = imports.map((target, i) => `import { value as v${i} } from '${relative(file, target)}';`).join('\n');
    writeFileSync(at, `${body}\nexport const value = ${imports.map((_, i) => `v${i}`).join(' + ') || '1'};\n`);
  }
  const { options } = config;
  const result = await cruise(['lib', 'app', 'components'], {
    ruleSet: { forbidden: config.forbidden },
    baseDir: scratch,
    includeOnly: options.includeOnly,
    exclude: options.exclude,
    doNotFollow: options.doNotFollow,
    tsPreCompilationDeps: true,
    validate: true,
  });
  const output = result.output as { summary: { violations: { rule: { name: string }; from: string; to: string }[] } };
  return output.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

function relative(from: string, to: string): string {
  const spec = path.posix.relative(path.posix.dirname(from), to).replace(/\.ts$/, '');
  return spec.startsWith('.') ? spec : `./${spec}`;
}

describe('the tiers of lib/', () => {
  it('an engine importing a domain fails', async () => {
    const found = await violations({
      'lib/transactions/probe.ts': ['lib/refunds/settle-refund.ts'],
      'lib/refunds/settle-refund.ts': [],
    });
    expect(found).toEqual([{ rule: 'tiers: lib/transactions', from: 'lib/transactions/probe.ts', to: 'lib/refunds/settle-refund.ts' }]);
  });

  it('a domain importing a composition fails, and so does the foundation importing an engine', async () => {
    const found = await violations({
      'lib/charges/probe.ts': ['lib/views/load-checkout-page.ts'],
      'lib/views/load-checkout-page.ts': [],
      'lib/db/probe.ts': ['lib/webhooks/relay.ts'],
      'lib/webhooks/relay.ts': [],
    });
    expect(found.map((v) => v.rule).sort()).toEqual(['tiers: lib/charges', 'tiers: lib/db']);
  });

  it('a domain importing a domain listed after it fails: domains cannot form a cycle', async () => {
    const found = await violations({
      'lib/accounts/probe.ts': ['lib/charges/get-charge.ts'],
      'lib/charges/get-charge.ts': [],
    });
    expect(found).toEqual([{ rule: 'tiers: lib/accounts', from: 'lib/accounts/probe.ts', to: 'lib/charges/get-charge.ts' }]);
  });

  it('two files importing each other fail, even inside one folder', async () => {
    const found = await violations({
      'lib/charges/a.ts': ['lib/charges/b.ts'],
      'lib/charges/b.ts': ['lib/charges/a.ts'],
    });
    expect(found.map((v) => v.rule)).toEqual(['no-cycles']);
  });

  it('a folder with no tier, and product code importing the dev stack, fail', async () => {
    const found = await violations({
      'lib/charges/probe.ts': ['lib/newthing/helper.ts', 'scripts/stack/local-chain.ts'],
      'lib/newthing/helper.ts': [],
      'scripts/stack/local-chain.ts': [],
    });
    expect(found.map((v) => v.rule).sort()).toEqual(['product code never imports the dev stack', 'tiers: every lib folder has a tier']);
  });

  it('imports that point down pass: a composition uses a domain, a domain an engine and the foundation, a schema its state.ts', async () => {
    const found = await violations({
      'lib/jobs/probe.ts': ['lib/refunds/settle-refund.ts'],
      'lib/refunds/settle-refund.ts': ['lib/charges/get-charge.ts', 'lib/transactions/record-transfer.ts', 'lib/money.ts'],
      'lib/charges/get-charge.ts': ['lib/accounts/find-user.ts', 'lib/db/client.ts'],
      'lib/accounts/find-user.ts': [],
      'lib/transactions/record-transfer.ts': ['lib/chains/registry.ts'],
      'lib/chains/registry.ts': [],
      'lib/money.ts': [],
      'lib/db/client.ts': [],
      'lib/db/schema/charges.ts': ['lib/charges/state.ts'],
      'lib/charges/state.ts': [],
    });
    expect(found).toEqual([]);
  });

  it('every folder of lib/ is in exactly one tier', async () => {
    const { readdirSync } = await import('node:fs');
    const folders = readdirSync('lib', { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    const tiered = TIERS.flatMap((tier) => tier.folders);
    expect(new Set(tiered).size).toBe(tiered.length);
    expect(folders.filter((folder) => !tiered.includes(folder))).toEqual([]);
  });
});
