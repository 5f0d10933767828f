import { describe, expect, it } from 'vitest';
import { parse } from 'lossless-json';
import { parseNumberExactly } from './body';

describe('lossless JSON numbers', () => {
  it('keeps numbers a float would change as their exact text', () => {
    const parsed = parse('{"a":0.30000000000000001,"b":12345678901234567890,"c":0.1,"d":3,"e":1.50}', null, parseNumberExactly) as Record<
      string,
      unknown
    >;
    expect(parsed).toEqual({ a: '0.30000000000000001', b: '12345678901234567890', c: 0.1, d: 3, e: '1.50' });
  });
});
