import { HDKey, hdKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { requireSecret } from '@/lib/env';
import { depositAccount } from './deposit-addresses';

describe('deposit address derivation', () => {
  it('matches the full BIP-44 derivation m/44\'/60\'/0\'/0/i (the cached branch changes nothing)', () => {
    const root = HDKey.fromMasterSeed(Buffer.from(requireSecret('DEPOSIT_HD_SEED'), 'base64'));
    for (const index of [0, 1, 2, 63, 64, 1000, 2 ** 31 - 1]) {
      expect(depositAccount(index).address).toBe(hdKeyToAccount(root, { addressIndex: index }).address);
    }
  });
});
