import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ID_PREFIXES, isIdOf, newId, randomBase62 } from './ids';

describe('ids', () => {
  it('are the prefix and 22 base62 characters, and never repeat', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('charge')); // crosses many 4 KiB refills of the byte pool
    for (const id of ids.slice(0, 100)) expect(isIdOf('charge', id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draw every base62 character equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const text = randomBase62(620_000);
    for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 10,000 each; a biased draw (byte % 62 without rejection) puts the first 8 characters ~25 % higher.
    for (const count of counts.values()) expect(Math.abs(count - 10_000)).toBeLessThan(600);
  });
});

// ids.ts itself, and secrets (longer, shown once, stored only as a hash or sealed), which are not ids.
const NOT_IDS = new Set(['lib/ids.ts', 'lib/oauth/client-secret.ts']);

describe('every prefixed id', () => {
  it('comes from newId: no product file builds `xx_${randomBase62(…)}` by hand', () => {
    const sources = execSync("git ls-files 'lib/**/*.ts' 'lib/*.ts' 'app/**/*.ts' 'app/**/*.tsx'", { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((file) => !/\.test\.tsx?$/.test(file) && !NOT_IDS.has(file));
    const handMade = /`[a-z]+_\$\{randomBase62\(|'[a-z]+_'\s*\+\s*randomBase62\(/;
    expect(sources.filter((file) => handMade.test(readFileSync(file, 'utf8')))).toEqual([]);
  });

  it('has a prefix of its own (the sandbox provider, which plays an outside provider, keeps its own namespace)', () => {
    const ours = Object.entries(ID_PREFIXES).filter(([kind]) => !kind.startsWith('sandbox'));
    expect(new Set(ours.map(([, prefix]) => prefix)).size).toBe(ours.length);
  });
});
