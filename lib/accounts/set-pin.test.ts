import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { appError, newUser, userRow } from '@/test/accounts';
import { setPin } from './set-pin';
import { hasPin, pinStatus } from './pin-status';
import { verifyPin } from './verify-pin';

const PIN = '482916';
const NEW_PIN = '730481';

describe('choosing a PIN', () => {
  it('refuses malformed, trivial and unconfirmed PINs with the field to fix, and stores nothing', async () => {
    const userId = await newUser();
    const cases: [string, string, string, number, string][] = [
      ['12345', '12345', 'invalid_request', 400, 'pin'],
      ['1234567', '1234567', 'invalid_request', 400, 'pin'],
      ['12a456', '12a456', 'invalid_request', 400, 'pin'],
      ['', '', 'invalid_request', 400, 'pin'],
      ['１２３４５６', '１２３４５６', 'invalid_request', 400, 'pin'],
      ['000000', '000000', 'pin_too_simple', 400, 'pin'],
      ['123456', '123456', 'pin_too_simple', 400, 'pin'],
      ['123123', '123123', 'pin_too_simple', 400, 'pin'],
      [PIN, '482917', 'invalid_request', 400, 'confirm'],
      [PIN, '', 'invalid_request', 400, 'confirm'],
    ];
    for (const [pin, confirm, code, status, param] of cases) {
      const error = await appError(setPin({ userId, pin, confirm }));
      expect([pin, confirm, error.code, error.status, error.param]).toEqual([pin, confirm, code, status, param]);
      expect(error.message.length).toBeGreaterThan(10);
    }
    expect((await userRow(userId)).pinHash).toBeNull();
    expect(await hasPin(userId)).toBe(false);
  });

  it('stores an argon2id hash keyed with the pepper, never the PIN', async () => {
    const userId = await newUser();
    await setPin({ userId, pin: PIN, confirm: PIN });
    const row = await userRow(userId);
    expect(row.pinHash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(row.pinHash).not.toContain(PIN);
    expect(row.pinSetAt).toBeInstanceOf(Date);
    // Without the pepper the stored hash is useless to a guesser.
    expect(await argon2Verify(row.pinHash!, PIN, { secret: Buffer.from(process.env.PIN_PEPPER!) })).toBe(true);
    expect(await argon2Verify(row.pinHash!, PIN)).toBe(false);
    expect(await hasPin(userId)).toBe(true);
    expect(await pinStatus(userId)).toEqual({ isSet: true, lockedUntil: null, disabled: false, attemptsLeft: 10 });
  });

  it('sets a PIN only once: an account with one changes or resets it', async () => {
    const userId = await newUser({ pin: PIN });
    const error = await appError(setPin({ userId, pin: NEW_PIN, confirm: NEW_PIN }));
    expect([error.code, error.status]).toEqual(['pin_already_set', 409]);
    await verifyPin({ userId, pin: PIN });
    expect((await appError(setPin({ userId: 'usr_unknown', pin: PIN, confirm: PIN }))).code).toBe('not_found');
  });

  it('a hash made with another pepper (or none) does not verify', async () => {
    for (const pinHash of [
      await argon2Hash(PIN, { secret: Buffer.from('another-pepper-0123456789abcdefghijklmnop') }),
      await argon2Hash(PIN),
    ]) {
      const userId = await newUser();
      await getDb().update(users).set({ pinHash }).where(eq(users.id, userId));
      expect((await appError(verifyPin({ userId, pin: PIN }))).code).toBe('pin_incorrect');
    }
  });
});
