import { createKeyPairSignerFromBytes, isAddress, isOffCurveAddress, address } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import { addressOfPrivateKey } from '@/lib/keyring/generate-keys';
import { deriveSlip10Ed25519, deriveSolanaDepositKey, ed25519PublicKey, newReferenceKey, solanaDepositPath } from './solana-deposit-keys';

/**
 * SLIP-0010 "Test vector 1 for ed25519" (https://github.com/satoshilabs/slips/blob/master/slip-0010.md):
 * seed 000102030405060708090a0b0c0d0e0f; every level of the chain m/0'/1'/2'/2'/1000000000'. The
 * published public keys carry a 0x00 prefix, dropped here (ed25519 public keys are 32 bytes).
 */
const VECTOR_1 = [
  {
    path: 'm',
    chainCode: '90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb',
    privateKey: '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7',
    publicKey: 'a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed',
  },
  {
    path: "m/0'",
    chainCode: '8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69',
    privateKey: '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3',
    publicKey: '8c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c',
  },
  {
    path: "m/0'/1'",
    chainCode: 'a320425f77d1b5c2505a6b1b27382b37368ee640e3557c315416801243552f14',
    privateKey: 'b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2',
    publicKey: '1932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187',
  },
  {
    path: "m/0'/1'/2'",
    chainCode: '2e69929e00b5ab250f49c3fb1c12f252de4fed2c1db88387094a0f8c4c9ccd6c',
    privateKey: '92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9',
    publicKey: 'ae98736566d30ed0e9d2f4486a64bc95740d89c7db33f52121f8ea8f76ff0fc1',
  },
  {
    path: "m/0'/1'/2'/2'",
    chainCode: '8f6d87f93d750e0efccda017d662a1b31a266e4a6f5993b15f5c1f07f74dd5cc',
    privateKey: '30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662',
    publicKey: '8abae2d66361c879b900d204ad2cc4984fa2aa344dd7ddc46007329ac76c429c',
  },
  {
    path: "m/0'/1'/2'/2'/1000000000'",
    chainCode: '68789923a0cac2cd5a29172a475fe9e0fb14cd6adb5ad98a3fa70333e7afa230',
    privateKey: '8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793',
    publicKey: '3c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a',
  },
];
const VECTOR_1_SEED = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');

/**
 * The BIP-39 seed of "abandon abandon … abandon about" (empty passphrase), and the address Phantom
 * and Solflare show for its first account (m/44'/501'/0'/0'). Proves the path, not only SLIP-0010.
 */
const ABANDON_SEED = Buffer.from(
  '5eb00bbddcf069084889a8ab9155568165f5c453ccb85e70811aaed6f6da5fc19a5ac40b389cd370d086206dec8aa6c43daea6690f20ad3d8d48b2d2ce9e38e4',
  'hex',
);
const ABANDON_ACCOUNT_0 = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk';

const SERVICE_SEED = Buffer.alloc(32, 5);

describe('SLIP-0010 ed25519', () => {
  it.each(VECTOR_1)('matches test vector 1 at $path', ({ path, chainCode, privateKey, publicKey }) => {
    const node = deriveSlip10Ed25519(VECTOR_1_SEED, path);
    expect(node.chainCode.toString('hex')).toBe(chainCode);
    expect(node.privateKey.toString('hex')).toBe(privateKey);
    expect(ed25519PublicKey(node.privateKey).toString('hex')).toBe(publicKey);
  });

  it('accepts "h" for a hardened step', () => {
    expect(deriveSlip10Ed25519(VECTOR_1_SEED, 'm/0h/1h').privateKey.toString('hex')).toBe(VECTOR_1[2]!.privateKey);
  });

  it('refuses non-hardened steps, malformed paths and out-of-range seeds', () => {
    expect(() => deriveSlip10Ed25519(VECTOR_1_SEED, "m/44'/501'/0")).toThrow(/hardened only/);
    expect(() => deriveSlip10Ed25519(VECTOR_1_SEED, "44'/501'")).toThrow(/starts with "m"/);
    expect(() => deriveSlip10Ed25519(VECTOR_1_SEED, "m/2147483648'")).toThrow(/out of range/);
    expect(() => deriveSlip10Ed25519(Buffer.alloc(15), 'm')).toThrow(/16 to 64 bytes/);
    expect(() => deriveSlip10Ed25519(Buffer.alloc(65), 'm')).toThrow(/16 to 64 bytes/);
  });
});

describe('deriveSolanaDepositKey', () => {
  it("derives Phantom's account addresses (m/44'/501'/index'/0')", () => {
    const key = deriveSolanaDepositKey(ABANDON_SEED, 0);
    expect(key.path).toBe("m/44'/501'/0'/0'");
    expect(key.address).toBe(ABANDON_ACCOUNT_0);
  });

  it('returns seed ‖ public key, which controls the address', async () => {
    const key = deriveSolanaDepositKey(SERVICE_SEED, 7);
    expect(key.secretKey).toHaveLength(64);
    expect(addressOfPrivateKey('solana', key.secretKey)).toBe(key.address);
    // @solana/kit checks the public half against the private one when importing a 64-byte key.
    expect((await createKeyPairSignerFromBytes(key.secretKey)).address).toBe(key.address);
  });

  it('is deterministic per (seed, index) and distinct across indexes and seeds', () => {
    expect(deriveSolanaDepositKey(SERVICE_SEED, 42)).toEqual(deriveSolanaDepositKey(Buffer.from(SERVICE_SEED), 42));
    const addresses = Array.from({ length: 64 }, (_, index) => deriveSolanaDepositKey(SERVICE_SEED, index).address);
    expect(new Set(addresses).size).toBe(64);
    expect(addresses.every((value) => isAddress(value))).toBe(true);
    expect(deriveSolanaDepositKey(Buffer.alloc(32, 6), 0).address).not.toBe(addresses[0]);
    expect(deriveSolanaDepositKey(SERVICE_SEED, 2 ** 31 - 1).path).toBe(solanaDepositPath(2 ** 31 - 1));
  });

  it('refuses short seeds and invalid indexes', () => {
    expect(() => deriveSolanaDepositKey(Buffer.alloc(31), 0)).toThrow(/at least 32 bytes/);
    for (const index of [-1, 1.5, 2 ** 31, Number.NaN])
      expect(() => deriveSolanaDepositKey(SERVICE_SEED, index)).toThrow(/Invalid derivation index/);
  });
});

describe('newReferenceKey', () => {
  it('is a fresh on-curve address every time', () => {
    const references = Array.from({ length: 100 }, () => newReferenceKey());
    expect(new Set(references).size).toBe(100);
    for (const reference of references) {
      expect(isAddress(reference)).toBe(true);
      expect(isOffCurveAddress(address(reference))).toBe(false);
    }
  });
});
