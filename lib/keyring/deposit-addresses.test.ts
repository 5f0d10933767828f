import { toHex } from 'viem';
import { HDKey, hdKeyToAccount, publicKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { requireSecret, resetEnvCache } from '@/lib/env';
import { getDb } from '@/lib/db/client';
import { newId } from '@/lib/ids';
import { depositAccount, depositAddressReserve, depositEvmAddress, newDepositAddress } from './deposit-addresses';
import { deriveDepositKeysOnWorker } from './deposit-key-worker';

describe('deposit address derivation', () => {
  it("matches the full BIP-44 derivation m/44'/60'/0'/0/i (the cached branch changes nothing)", () => {
    const root = HDKey.fromMasterSeed(Buffer.from(requireSecret('DEPOSIT_HD_SEED'), 'base64'));
    for (const index of [0, 1, 2, 63, 64, 1000, 2 ** 31 - 1]) {
      expect(depositAccount(index).address).toBe(hdKeyToAccount(root, { addressIndex: index }).address);
    }
  });

  it('gives, by public derivation, the address the sweep key controls', () => {
    const root = HDKey.fromMasterSeed(Buffer.from(requireSecret('DEPOSIT_HD_SEED'), 'base64'));
    for (const index of [0, 1, 2, 63, 64, 1000, 123_456, 2 ** 31 - 1]) {
      const expected = hdKeyToAccount(root, { addressIndex: index }).address;
      expect(depositEvmAddress(index)).toBe(expected);
      expect(depositAccount(index).address).toBe(expected);
    }
  });

  it('refuses indexes that are not non-hardened BIP-32 indexes', () => {
    for (const index of [-1, 2 ** 31, 1.5]) expect(() => depositEvmAddress(index)).toThrow(/not a non-hardened/);
  });
});

describe('pre-derived deposit addresses (worker thread)', () => {
  // Public derivation with @noble/curves (resolves from the project directory), and OpenSSL's private
  // derivation where it does not: both give the keys the sweep controls.
  it.each([
    { via: 'public derivation (@noble/curves)', openssl: false },
    { via: 'private derivation (OpenSSL)', openssl: true },
  ])('the worker derives, by $via, the same keys and EIP-55 addresses as the private derivation the sweep uses', async ({ openssl }) => {
    const key = HDKey.fromMasterSeed(Buffer.from(requireSecret('DEPOSIT_HD_SEED'), 'base64')).derive("m/44'/60'/0'/0");
    // A block as the reserve draws it (one inversion for all), and the edges of the index range.
    const indexes = [0, 1, 7, 64, 99_999, 2 ** 31 - 1, ...Array.from({ length: 60 }, (_, i) => 5_000 + i)];
    const derived = await deriveDepositKeysOnWorker(
      { privateKey: key.privateKey!, chainCode: key.chainCode!, publicKey: key.publicKey! },
      indexes,
      { openssl },
    );
    expect(derived).toHaveLength(indexes.length);
    indexes.forEach((index, i) => {
      expect(derived[i]!.publicKey).toHaveLength(65);
      expect(publicKeyToAddress(toHex(derived[i]!.publicKey))).toBe(depositAccount(index).address);
      // Hashed on the worker (viem resolves from the project directory), checksummed.
      expect(derived[i]!.address).toBe(depositAccount(index).address);
    });
  });

  it('charges draw addresses from the reserve, each one controlled by the sweep key of its stored index', async () => {
    const charge = () => ({ id: newId('charge'), chain: 'POLYGON' as const, expiresAt: new Date(Date.now() + 3_600_000) });
    await newDepositAddress(getDb(), charge()); // starts the first top-up
    await depositAddressReserve().topUp;
    const before = depositAddressReserve().size;
    expect(before).toBeGreaterThan(0);
    const drawn = await Promise.all(Array.from({ length: 20 }, () => newDepositAddress(getDb(), charge())));
    expect(depositAddressReserve().size).toBeLessThan(before);
    expect(new Set(drawn.map((row) => row.address)).size).toBe(20);
    expect(new Set(drawn.map((row) => row.derivationIndex)).size).toBe(20);
    for (const row of drawn) expect(row.address).toBe(depositAccount(row.derivationIndex).address);
  });
});

describe('which deposit addresses may come from a merchant pool (ADR 0038)', () => {
  const charge = (chain: 'POLYGON' | 'SOLANA') => ({ id: newId('charge'), chain, expiresAt: new Date(Date.now() + 3_600_000) });

  it('EVM charges may lease an address free for DEPOSIT_ADDRESS_REUSE_AFTER; Solana charges never; reuse off: none', async () => {
    process.env.DEPOSIT_ADDRESS_REUSE_AFTER = '2h';
    resetEnvCache();
    try {
      const evm = await newDepositAddress(getDb(), charge('POLYGON'));
      expect(Date.now() - 2 * 3_600_000 - evm.reuseFreedBefore!.getTime()).toBeLessThan(5_000);
      expect((await newDepositAddress(getDb(), charge('SOLANA'))).reuseFreedBefore).toBeNull();
      process.env.DEPOSIT_ADDRESS_REUSE = 'false';
      resetEnvCache();
      expect((await newDepositAddress(getDb(), charge('POLYGON'))).reuseFreedBefore).toBeNull();
    } finally {
      delete process.env.DEPOSIT_ADDRESS_REUSE_AFTER;
      delete process.env.DEPOSIT_ADDRESS_REUSE;
      resetEnvCache();
    }
  });
});
