import { createPrivateKey, createPublicKey } from 'node:crypto';
import { createKeyPairFromBytes, getAddressDecoder, getAddressFromPublicKey, getBase58Encoder } from '@solana/kit';
import { eq } from 'drizzle-orm';
import { privateKeyToAddress } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { setPin } from '@/lib/accounts/set-pin';
import { getDb } from '@/lib/db/client';
import { users, walletExports } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId, randomBase62 } from '@/lib/ids';
import { createWalletsForUser, type CreatedWallet } from '@/lib/keyring/create-wallets';
import { exportPrivateKey, listWalletExports } from './export-private-key';

const PIN = '482916';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Test/1.0';

async function newAccount(options: { pin?: string } = {}): Promise<{ userId: string; evm: CreatedWallet; solana: CreatedWallet }> {
  const userId = newId('user');
  const created = await getDb().transaction(async (tx) => {
    await tx.insert(users).values({ id: userId, email: `x-${randomBase62(10).toLowerCase()}@example.test`, signUpMethod: 'email' });
    return createWalletsForUser(tx, userId);
  });
  if (options.pin) await setPin({ userId, pin: options.pin, confirm: options.pin });
  return { userId, evm: created.find((w) => w.family === 'evm')!, solana: created.find((w) => w.family === 'solana')! };
}

async function exportError(input: Parameters<typeof exportPrivateKey>[0]): Promise<AppError> {
  const error = await exportPrivateKey(input).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

async function exportCount(userId: string): Promise<number> {
  return (await getDb().select().from(walletExports).where(eq(walletExports.userId, userId))).length;
}

describe('exportPrivateKey', () => {
  it('exports the EVM key as hex that controls the address, and records the export', async () => {
    const { userId, evm } = await newAccount({ pin: PIN });
    const exported = await exportPrivateKey({ userId, walletId: evm.id, pin: PIN, ip: '203.0.113.7', userAgent: BROWSER });
    expect(exported.format).toBe('hex');
    expect(exported.address).toBe(evm.address);
    expect(exported.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(privateKeyToAddress(exported.privateKey as `0x${string}`)).toBe(evm.address);

    const history = await listWalletExports(userId);
    expect(history).toEqual([
      {
        id: expect.stringMatching(/^wex_/),
        walletId: evm.id,
        family: 'evm',
        address: evm.address,
        ip: '203.0.113.7',
        userAgent: BROWSER,
        createdAt: expect.any(Date),
      },
    ]);
  });

  it('exports the Solana key as the 64-byte base58 secret wallet apps import', async () => {
    const { userId, solana } = await newAccount({ pin: PIN });
    const exported = await exportPrivateKey({ userId, walletId: solana.id, pin: PIN, ip: null, userAgent: null });
    expect(exported.format).toBe('base58');
    const secret = new Uint8Array(getBase58Encoder().encode(exported.privateKey));
    expect(secret).toHaveLength(64);
    // Derive the public key from the seed alone (node:crypto) ...
    const seed = Buffer.from(secret.subarray(0, 32));
    const key = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
      format: 'der',
      type: 'pkcs8',
    });
    const publicKey = Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url');
    expect(getAddressDecoder().decode(publicKey)).toBe(solana.address);
    // ... and import it the way a Solana wallet would (it checks the public half matches the seed).
    const keyPair = await createKeyPairFromBytes(secret);
    expect(await getAddressFromPublicKey(keyPair.publicKey)).toBe(solana.address);
    expect((await listWalletExports(userId)).map((e) => [e.walletId, e.ip, e.userAgent])).toEqual([[solana.id, null, null]]);
  });

  it('refuses without a PIN, with a wrong PIN and without a PIN set, recording nothing', async () => {
    const { userId, evm } = await newAccount({ pin: PIN });
    const base = { userId, walletId: evm.id, ip: '203.0.113.7', userAgent: BROWSER };
    expect((await exportError({ ...base, pin: '' })).param).toBe('pin');
    expect((await exportError({ ...base, pin: '000000' })).code).toBe('pin_incorrect');

    const noPin = await newAccount();
    expect((await exportError({ ...base, userId: noPin.userId, walletId: noPin.evm.id, pin: PIN })).code).toBe('pin_not_set');

    expect(await exportCount(userId)).toBe(0);
    expect(await exportCount(noPin.userId)).toBe(0);
  });

  it("another account's wallet is not_found, even with that account's right PIN", async () => {
    const owner = await newAccount({ pin: PIN });
    const intruder = await newAccount({ pin: '135790' });
    for (const pin of ['135790', PIN]) {
      const error = await exportError({ userId: intruder.userId, walletId: owner.evm.id, pin, ip: null, userAgent: null });
      expect([error.code, error.status]).toEqual(['not_found', 404]);
    }
    expect((await exportError({ userId: owner.userId, walletId: 'wal_unknown', pin: PIN, ip: null, userAgent: null })).code).toBe(
      'not_found',
    );
    expect(await exportCount(owner.userId)).toBe(0);
    expect(await exportCount(intruder.userId)).toBe(0);
  });

  it('lists every export of the account, newest first, and only its own', async () => {
    const { userId, evm, solana } = await newAccount({ pin: PIN });
    const other = await newAccount({ pin: PIN });
    await exportPrivateKey({ userId, walletId: evm.id, pin: PIN, ip: '198.51.100.1', userAgent: 'first' });
    await exportPrivateKey({ userId, walletId: solana.id, pin: PIN, ip: '198.51.100.2', userAgent: 'second' });
    await exportPrivateKey({ userId: other.userId, walletId: other.evm.id, pin: PIN, ip: null, userAgent: null });
    expect((await listWalletExports(userId)).map((e) => [e.address, e.userAgent])).toEqual([
      [solana.address, 'second'],
      [evm.address, 'first'],
    ]);
  });
});
