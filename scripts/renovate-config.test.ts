/**
 * The dependency-update configuration (.renovaterc.json) names packages by hand: a renamed or removed
 * dependency would silently fall out of its group or hold. Renovate itself is not installed here (no
 * validator run): this checks the JSON parses and every package it names is one package.json declares.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface PackageRule {
  groupName?: string;
  description?: string;
  matchPackageNames?: string[];
}

const config = JSON.parse(readFileSync('.renovaterc.json', 'utf8')) as { packageRules: PackageRule[]; schedule: string[] };
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, string> | undefined>;
const declared = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})]);

describe('dependency updates (.renovaterc.json)', () => {
  it('names only packages package.json declares', () => {
    const unknown = config.packageRules.flatMap((rule) => (rule.matchPackageNames ?? []).filter((name) => !declared.has(name)));
    expect(unknown).toEqual([]);
  });

  it('puts a package in at most one group, and says why each hold exists', () => {
    const groups = config.packageRules.filter((rule) => rule.groupName).flatMap((rule) => rule.matchPackageNames ?? []);
    expect(groups.filter((name, i) => groups.indexOf(name) !== i)).toEqual([]);
    const holds = config.packageRules.filter((rule) => !rule.groupName && rule.matchPackageNames);
    expect(holds.every((rule) => (rule.description ?? '').length > 20)).toBe(true);
    expect(config.schedule.length).toBeGreaterThan(0);
  });
});
