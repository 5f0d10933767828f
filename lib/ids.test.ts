import { describe, expect, it } from 'vitest';
import { isIdOf, newId, randomBase62 } from './ids';

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
