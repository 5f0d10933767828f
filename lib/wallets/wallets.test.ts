import { randomBytes } from 'node:crypto';
import { createKeyPairFromBytes, getAddressFromPublicKey, getBase58Decoder, isAddress as isSolanaAddress } from '@solana/kit';
import { eq, inArray } from 'drizzle-orm';
import { bytesToHex, isAddress as isEvmAddress } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVM_CHAIN_NAMES } from '@/lib/chains/registry';
import { getDb } from '@/lib/db/client';
import { oidcSigningKeys, users, wallets, webhookEndpoints, type WalletRow } from '@/lib/db/schema';
import { sealWebhookSecret, signingSecretsOf } from '@/lib/webhooks/secrets';
import { newMerchant } from '@/test/fixtures';
import { resetEnvCache } from '@/lib/env';
import { newId, randomBase62 } from '@/lib/ids';
import { createWalletsForUser, ensureMerchantWallets } from '@/lib/keyring/create-wallets';
import { openWalletKey, sealWalletKey } from '@/lib/keyring/envelope';
import { formatPrivateKey, generateWalletKey } from '@/lib/keyring/generate-keys';
import { listWallets } from './list-wallets';
import { masterKeyIdOf, masterKeyRing, open, seal, WalletKeyError } from '@/lib/keyring/master-keys';
import { rotateMasterKey } from '@/lib/admin/rotate-master-key';

/**
 * This file seals its wallets under its own master key, not the suite's shared one: rotateMasterKey walks
 * every wallet in the shared database, and other test files must keep opening theirs. Their wallets show up
 * here as `failed` (their key is not in this file's ring) and are left untouched.
 */
const ownKey = randomBytes(32);
const savedEnv = { current: process.env.WALLET_MASTER_KEY, previous: process.env.WALLET_MASTER_KEYS_PREVIOUS };

function useMasterKeys(current: Buffer, previous: Buffer[] = []): void {
  process.env.WALLET_MASTER_KEY = current.toString('base64');
  process.env.WALLET_MASTER_KEYS_PREVIOUS = previous.map((key) => key.toString('base64')).join(',');
  resetEnvCache();
}

beforeAll(() => useMasterKeys(ownKey));
afterAll(() => {
  process.env.WALLET_MASTER_KEY = savedEnv.current;
  process.env.WALLET_MASTER_KEYS_PREVIOUS = savedEnv.previous;
  resetEnvCache();
});

async function newUserWithWallets(): Promise<{ userId: string; rows: WalletRow[] }> {
  const userId = newId('user');
  await getDb().transaction(async (tx) => {
    await tx.insert(users).values({ id: userId, email: `w-${randomBase62(10).toLowerCase()}@example.test`, signUpMethod: 'email' });
    await createWalletsForUser(tx, userId);
  });
  return { userId, rows: await walletRows([userId]) };
}

async function walletRows(userIds: string[]): Promise<WalletRow[]> {
  return getDb().select().from(wallets).where(inArray(wallets.userId, userIds));
}

function rowOf(rows: WalletRow[], family: WalletRow['family']): WalletRow {
  return rows.find((row) => row.family === family)!;
}

describe('createWalletsForUser', () => {
  it('gives a new account one EVM and one Solana wallet whose keys control their addresses', async () => {
    const { userId, rows } = await newUserWithWallets();
    expect(rows.map((r) => r.family).sort()).toEqual(['evm', 'solana']);

    const evm = rowOf(rows, 'evm');
    expect(isEvmAddress(evm.address, { strict: true })).toBe(true);
    expect(privateKeyToAddress(bytesToHex(openWalletKey(evm)))).toBe(evm.address);

    const solana = rowOf(rows, 'solana');
    expect(isSolanaAddress(solana.address)).toBe(true);
    // @solana/kit refuses a 64-byte secret whose public half does not belong to its seed.
    const keyPair = await createKeyPairFromBytes(new Uint8Array(openWalletKey(solana)));
    expect(await getAddressFromPublicKey(keyPair.publicKey)).toBe(solana.address);

    expect(new Set(rows.map((r) => r.masterKeyId))).toEqual(new Set([masterKeyIdOf(ownKey)]));
    expect(await listWallets(userId)).toEqual([
      { id: evm.id, family: 'evm', address: evm.address, chains: [...EVM_CHAIN_NAMES] },
      { id: solana.id, family: 'solana', address: solana.address, chains: ['SOLANA', 'SOLANA_DEVNET'] },
    ]);
    expect(EVM_CHAIN_NAMES).toEqual(expect.arrayContaining(['POLYGON', 'POLYGON_AMOY', 'DFK', 'DFK_TESTNET', 'BSC', 'BSC_TESTNET']));
  });

  it('is idempotent per account and family, and keeps the first keys', async () => {
    const { userId, rows } = await newUserWithWallets();
    const again = await getDb().transaction((tx) => createWalletsForUser(tx, userId));
    expect(again.map((w) => w.id).sort()).toEqual(rows.map((r) => r.id).sort());
    const byId = (x: WalletRow, y: WalletRow) => x.id.localeCompare(y.id);
    expect((await walletRows([userId])).sort(byId)).toEqual([...rows].sort(byId));
  });

  it('an owner that has its wallets is only read (the Balances page calls this on every view): it runs in a read-only transaction', async () => {
    const merchant = await newMerchant();
    const created = await getDb().transaction((tx) => ensureMerchantWallets(tx, merchant.id));
    const read = await getDb().transaction((tx) => ensureMerchantWallets(tx, merchant.id), { accessMode: 'read only' });
    expect(read).toEqual(created);
    const { userId } = await newUserWithWallets();
    await expect(getDb().transaction((tx) => createWalletsForUser(tx, userId), { accessMode: 'read only' })).resolves.toHaveLength(2);
  });

  it('commits with the caller: a rolled-back sign-up leaves no wallets', async () => {
    const userId = newId('user');
    await expect(
      getDb().transaction(async (tx) => {
        await tx.insert(users).values({ id: userId, email: `w-${randomBase62(10).toLowerCase()}@example.test`, signUpMethod: 'email' });
        await createWalletsForUser(tx, userId);
        throw new Error('sign-up failed later');
      }),
    ).rejects.toThrow('sign-up failed later');
    expect(await walletRows([userId])).toEqual([]);
  });

  it('stores no private key in clear in any column', async () => {
    const { rows } = await newUserWithWallets();
    for (const row of rows) {
      const raw = openWalletKey(row);
      const forms = [
        raw.toString('hex'),
        raw.toString('hex').toUpperCase(),
        raw.toString('base64'),
        raw.toString('base64url'),
        formatPrivateKey(row.family, raw).privateKey,
      ];
      if (row.family === 'solana') {
        const seed = raw.subarray(0, 32);
        forms.push(seed.toString('hex'), seed.toString('base64'), getBase58Decoder().decode(seed));
      }
      const stored = Object.values(row).map((value) => (value instanceof Date ? value.toISOString() : String(value)));
      for (const value of stored) {
        for (const form of forms) expect(value.includes(form.replace(/^0x/, ''))).toBe(false);
        // Sealed columns hold only base64 ciphertext: decode them and look for the raw bytes too.
        expect(Buffer.from(value, 'base64').includes(raw)).toBe(false);
      }
    }
  });

  it('never lists the sealed columns', async () => {
    const { userId } = await newUserWithWallets();
    for (const view of await listWallets(userId)) expect(Object.keys(view).sort()).toEqual(['address', 'chains', 'family', 'id']);
  });
});

describe('sealing', () => {
  it('AES-256-GCM round trip with associated data; other data or a changed byte fails', () => {
    const key = randomBytes(32);
    const aad = Buffer.from('wallet wal_1');
    const sealed = seal(key, Buffer.from('secret bytes'), aad);
    expect(open(key, sealed, aad, 'test').toString()).toBe('secret bytes');
    expect(seal(key, Buffer.from('secret bytes'), aad)).not.toBe(sealed); // random IV
    expect(() => open(key, sealed, Buffer.from('wallet wal_2'), 'test')).toThrow(WalletKeyError);
    expect(() => open(randomBytes(32), sealed, aad, 'test')).toThrow(WalletKeyError);
    const bytes = Buffer.from(sealed, 'base64');
    for (const index of [0, 12, bytes.length - 1]) {
      const tampered = Buffer.from(bytes);
      tampered[index]! ^= 1;
      expect(() => open(key, tampered.toString('base64'), aad, 'test')).toThrow(/authentication failed/);
    }
    expect(() => open(key, 'AAAA', aad, 'test')).toThrow(/truncated/);
  });

  it('a whole wallet envelope round-trips for both families', () => {
    for (const family of ['evm', 'solana'] as const) {
      const generated = generateWalletKey(family);
      const wallet = { id: newId('wallet'), family, address: generated.address };
      const sealed = sealWalletKey(wallet, generated.privateKey);
      expect(openWalletKey({ ...wallet, ...sealed }).equals(Buffer.from(generated.privateKey))).toBe(true);
    }
  });

  it('a tampered ciphertext fails to open', async () => {
    const { rows } = await newUserWithWallets();
    const evm = rowOf(rows, 'evm');
    for (const column of ['sealedPrivateKey', 'sealedDataKey'] as const) {
      const bytes = Buffer.from(evm[column], 'base64');
      bytes[20]! ^= 0x80;
      expect(() => openWalletKey({ ...evm, [column]: bytes.toString('base64') })).toThrow(WalletKeyError);
    }
  });

  it('sealed keys swapped between two wallets, or moved to another address, fail to open', async () => {
    const a = rowOf((await newUserWithWallets()).rows, 'evm');
    const b = rowOf((await newUserWithWallets()).rows, 'evm');
    const swap = { sealedPrivateKey: b.sealedPrivateKey, sealedDataKey: b.sealedDataKey };
    expect(() => openWalletKey({ ...a, ...swap })).toThrow(WalletKeyError);
    expect(() => openWalletKey({ ...a, sealedPrivateKey: b.sealedPrivateKey })).toThrow(WalletKeyError);
    expect(() => openWalletKey({ ...a, sealedDataKey: b.sealedDataKey })).toThrow(WalletKeyError);
    expect(() => openWalletKey({ ...a, address: b.address })).toThrow(WalletKeyError);
    expect(() => openWalletKey({ ...a, id: b.id })).toThrow(WalletKeyError);
    // The same swap in the database: a copied row does not open either.
    await getDb().update(wallets).set(swap).where(eq(wallets.id, a.id));
    const [swapped] = await getDb().select().from(wallets).where(eq(wallets.id, a.id));
    expect(() => openWalletKey(swapped!)).toThrow(/wallet .* authentication failed/);
    await getDb().update(wallets).set({ sealedPrivateKey: a.sealedPrivateKey, sealedDataKey: a.sealedDataKey }).where(eq(wallets.id, a.id));
  });
});

describe('master key rotation', () => {
  it('re-seals every data key under the new key, and keys still open before and after the old key is removed', async () => {
    const before = [...(await newUserWithWallets()).rows, ...(await newUserWithWallets()).rows];
    const keysBefore = new Map(before.map((row) => [row.id, openWalletKey(row)]));
    const newKey = randomBytes(32);

    useMasterKeys(newKey, [ownKey]);
    try {
      const result = await rotateMasterKey({ batchSize: 3 });
      expect(result.masterKeyId).toBe(masterKeyIdOf(newKey));
      expect(result.resealed).toBeGreaterThanOrEqual(before.length);
      const failed = new Set(result.failed.map((f) => f.id));
      for (const row of before) expect(failed.has(row.id)).toBe(false);

      const after = await getDb()
        .select()
        .from(wallets)
        .where(inArray(wallets.id, [...keysBefore.keys()]));
      for (const row of after) {
        const old = before.find((r) => r.id === row.id)!;
        expect(row.masterKeyId).toBe(masterKeyIdOf(newKey));
        expect(row.sealedDataKey).not.toBe(old.sealedDataKey);
        expect(row.sealedPrivateKey).toBe(old.sealedPrivateKey); // private keys are not re-encrypted
        expect(openWalletKey(row).equals(keysBefore.get(row.id)!)).toBe(true);
      }
      // Nothing of this file's is left on the old key: a second run has nothing of ours to do.
      const second = await rotateMasterKey();
      expect(second.resealed).toBe(0);

      useMasterKeys(newKey);
      for (const row of after) expect(openWalletKey(row).equals(keysBefore.get(row.id)!)).toBe(true);
      // New wallets are sealed under the new key directly.
      expect(new Set((await newUserWithWallets()).rows.map((r) => r.masterKeyId))).toEqual(new Set([masterKeyIdOf(newKey)]));
    } finally {
      useMasterKeys(ownKey, [newKey]);
      await rotateMasterKey(); // back to this file's key for the other tests
      useMasterKeys(ownKey);
    }
  });

  it('re-seals webhook signing secrets (current and previous) too: they still sign once the old key is removed', async () => {
    const merchant = await newMerchant();
    const id = newId('webhookEndpoint');
    await getDb()
      .insert(webhookEndpoints)
      .values({
        id,
        merchantId: merchant.id,
        mode: 'test',
        url: 'https://shop.example/webhooks',
        eventTypes: ['*'],
        signingSecret: sealWebhookSecret(id, 'whsec_current'),
        previousSigningSecret: sealWebhookSecret(id, 'whsec_previous'),
        previousSecretExpiresAt: new Date(Date.now() + 3_600_000),
      });
    const newKey = randomBytes(32);
    useMasterKeys(newKey, [ownKey]);
    try {
      const result = await rotateMasterKey();
      expect(result.failed.map((f) => f.id)).not.toContain(id);
      expect(result.resealedByKind['webhook signing secret']).toBeGreaterThanOrEqual(1);
      useMasterKeys(newKey);
      const [row] = await getDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
      expect(row!.signingSecret.startsWith(`${masterKeyIdOf(newKey)}:`)).toBe(true);
      expect(signingSecretsOf(row!)).toEqual(['whsec_current', 'whsec_previous']);
    } finally {
      useMasterKeys(ownKey, [newKey]);
      await rotateMasterKey();
      useMasterKeys(ownKey);
    }
  });

  it("re-seals the OpenID provider's signing keys too: they still open once the old key is removed", async () => {
    // A retired, unpublished key (other files' providers never load it), sealed as lib/oauth/signing-keys.ts seals.
    const kid = `sk_${randomBase62(16)}`;
    const aad = Buffer.from(JSON.stringify(['chargeport.oidc-signing-key.v1', kid]), 'utf8');
    const privateJwk = Buffer.from(JSON.stringify({ kty: 'RSA', kid, d: 'secret-part' }), 'utf8');
    const past = new Date(Date.now() - 60_000);
    await getDb()
      .insert(oidcSigningKeys)
      .values({
        id: kid,
        alg: 'RS256',
        sealedPrivateJwk: `${masterKeyIdOf(ownKey)}:${seal(ownKey, privateJwk, aad)}`,
        publicJwk: { kty: 'RSA', kid },
        retiredAt: past,
        publishedUntil: past,
      });
    const newKey = randomBytes(32);
    useMasterKeys(newKey, [ownKey]);
    try {
      const result = await rotateMasterKey();
      expect(result.failed.map((f) => f.id)).not.toContain(kid);
      expect(result.resealedByKind['OpenID signing key']).toBeGreaterThanOrEqual(1);
      const [row] = await getDb().select().from(oidcSigningKeys).where(eq(oidcSigningKeys.id, kid));
      const [keyId, sealed] = [
        row!.sealedPrivateJwk.slice(0, row!.sealedPrivateJwk.indexOf(':')),
        row!.sealedPrivateJwk.slice(row!.sealedPrivateJwk.indexOf(':') + 1),
      ];
      expect(keyId).toBe(masterKeyIdOf(newKey));
      expect(open(newKey, sealed, aad, 'the test signing key').toString('utf8')).toBe(privateJwk.toString('utf8'));
    } finally {
      useMasterKeys(ownKey, [newKey]);
      await rotateMasterKey();
      useMasterKeys(ownKey);
      await getDb().delete(oidcSigningKeys).where(eq(oidcSigningKeys.id, kid));
    }
  });

  it('concurrent runs re-seal each wallet exactly once', async () => {
    const mine = [...(await newUserWithWallets()).rows, ...(await newUserWithWallets()).rows, ...(await newUserWithWallets()).rows];
    const newKey = randomBytes(32);
    const onOwnKey = await getDb()
      .select({ id: wallets.id })
      .from(wallets)
      .where(eq(wallets.masterKeyId, masterKeyIdOf(ownKey)));
    expect(onOwnKey.length).toBeGreaterThanOrEqual(mine.length);
    useMasterKeys(newKey, [ownKey]);
    try {
      const runs = await Promise.all([
        rotateMasterKey({ batchSize: 2 }),
        rotateMasterKey({ batchSize: 2 }),
        rotateMasterKey({ batchSize: 2 }),
      ]);
      // Only this file's wallets can be opened with this ring, so every re-seal was one of ours.
      const onOldKey = await getDb()
        .select({ id: wallets.id })
        .from(wallets)
        .where(eq(wallets.masterKeyId, masterKeyIdOf(ownKey)));
      expect(onOldKey).toEqual([]);
      expect(runs.reduce((sum, run) => sum + (run.resealedByKind['wallet key'] ?? 0), 0)).toBe(onOwnKey.length);
      const rows = await getDb()
        .select()
        .from(wallets)
        .where(
          inArray(
            wallets.id,
            mine.map((r) => r.id),
          ),
        );
      for (const row of rows) expect(openWalletKey(row)).toHaveLength(row.family === 'evm' ? 32 : 64);
    } finally {
      useMasterKeys(ownKey, [newKey]);
      await rotateMasterKey();
      useMasterKeys(ownKey);
    }
  });

  it('a wallet sealed with an unknown master key gives an error naming the key id and what to configure', async () => {
    const { rows } = await newUserWithWallets();
    const evm = rowOf(rows, 'evm');
    const stranger = randomBytes(32);
    useMasterKeys(stranger);
    try {
      let caught: unknown;
      try {
        openWalletKey(evm);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(WalletKeyError);
      const message = (caught as Error).message;
      expect(message).toContain(evm.id);
      expect(message).toContain(masterKeyIdOf(ownKey));
      expect(message).toContain(masterKeyIdOf(stranger));
      expect(message).toContain('WALLET_MASTER_KEYS_PREVIOUS');

      const result = await rotateMasterKey();
      expect(result.failed).toContainEqual({ kind: 'wallet key', table: 'wallets', id: evm.id, reason: message });
      expect(result.onOldKeys).toContainEqual(
        expect.objectContaining({ column: 'wallets.sealed_data_key', masterKeyId: masterKeyIdOf(ownKey) }),
      );
    } finally {
      useMasterKeys(ownKey);
    }
  });

  it('key ids are stable, short and derived from the key', () => {
    expect(masterKeyIdOf(Buffer.alloc(32, 7))).toMatch(/^mk_[0-9a-f]{16}$/);
    expect(masterKeyIdOf(Buffer.alloc(32, 7))).toBe(masterKeyIdOf(Buffer.alloc(32, 7)));
    expect(masterKeyIdOf(Buffer.alloc(32, 8))).not.toBe(masterKeyIdOf(Buffer.alloc(32, 7)));
    expect(masterKeyRing().current.id).toBe(masterKeyIdOf(ownKey));
  });
});
