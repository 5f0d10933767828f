import { describe, expect, it } from 'vitest';
import { CHAIN_NAMES } from '@/lib/chains/registry';
import { Chain } from '../src/index';

describe('Chain', () => {
  it('lists exactly the chains of the registry, each named after itself', () => {
    expect(Object.keys(Chain).sort()).toEqual([...CHAIN_NAMES].sort());
    for (const [key, value] of Object.entries(Chain)) expect(value).toBe(key);
  });
});
