import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { closeDb, getDb } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { AppError } from '@/lib/errors';
import { appError, newUser, userRow } from '@/test/accounts';
import { pinStatus } from './pin-status';
import { verifyPin } from './verify-pin';

const PIN = '482916';
const WRONG = '519273';
const MINUTE = 60_000;

describe('verifyPin', () => {
  it('accepts the right PIN; a wrong one is counted and a right one resets the count', async () => {
    const userId = await newUser({ pin: PIN });
    await verifyPin({ userId, pin: PIN });
    const error = await appError(verifyPin({ userId, pin: WRONG }));
    expect([error.code, error.status, error.param]).toEqual(['pin_incorrect', 403, 'pin']);
    expect(error.message).toBe('Wrong PIN. 4 tries left before the PIN is locked for a while.');
    await appError(verifyPin({ userId, pin: WRONG }));
    expect((await userRow(userId)).pinFailedAttempts).toBe(2);
    expect((await pinStatus(userId)).attemptsLeft).toBe(8);
    await verifyPin({ userId, pin: PIN });
    expect((await userRow(userId)).pinFailedAttempts).toBe(0);
  });

  it('without a PIN: pin_not_set, telling the user to set one first', async () => {
    const userId = await newUser();
    const error = await appError(verifyPin({ userId, pin: PIN }));
    expect([error.code, error.status]).toEqual(['pin_not_set', 403]);
    expect(error.message).toMatch(/set a PIN first/i);
    expect(await pinStatus(userId)).toEqual({ isSet: false, lockedUntil: null, disabled: false, attemptsLeft: 10 });
  });

  it('a malformed PIN is refused without counting (it cannot be right)', async () => {
    const userId = await newUser({ pin: PIN });
    for (const pin of ['', '12345', 'abcdef', '4829160']) {
      expect((await appError(verifyPin({ userId, pin }))).code).toBe('invalid_request');
    }
    expect((await userRow(userId)).pinFailedAttempts).toBe(0);
  });

  it('locks for longer after each wrong PIN from the 5th (1 min, 5 min, 15 min, 1 h, 4 h), then disables at the 10th', async () => {
    const userId = await newUser({ pin: PIN });
    const t0 = new Date();
    for (let i = 1; i <= 4; i++) {
      const error = await appError(verifyPin({ userId, pin: WRONG, now: t0 }));
      expect([error.code, error.headers]).toEqual(['pin_incorrect', undefined]);
    }
    let now = t0;
    const schedule: [number, string, string][] = [
      [5, '60', 'Wrong PIN. The PIN is locked for 1 minute; 5 more wrong PINs disable it.'],
      [6, '300', 'Wrong PIN. The PIN is locked for 5 minutes; 4 more wrong PINs disable it.'],
      [7, '900', 'Wrong PIN. The PIN is locked for 15 minutes; 3 more wrong PINs disable it.'],
      [8, '3600', 'Wrong PIN. The PIN is locked for 1 hour; 2 more wrong PINs disable it.'],
      [9, '14400', 'Wrong PIN. The PIN is locked for 4 hours; 1 more wrong PIN disables it.'],
    ];
    for (const [attempt, seconds, message] of schedule) {
      const error = await appError(verifyPin({ userId, pin: WRONG, now }));
      expect([attempt, error.code, error.headers?.['retry-after'], error.message]).toEqual([attempt, 'pin_incorrect', seconds, message]);
      const lockMs = Number(seconds) * 1000;
      expect((await userRow(userId)).pinLockedUntil).toEqual(new Date(now.getTime() + lockMs));
      expect((await pinStatus(userId, { now })).lockedUntil).toEqual(new Date(now.getTime() + lockMs));

      // One second before the lock ends even the right PIN is refused, with Retry-After, and not counted.
      const locked = await appError(verifyPin({ userId, pin: PIN, now: new Date(now.getTime() + lockMs - 1000) }));
      expect([locked.code, locked.status, locked.headers?.['retry-after']]).toEqual(['pin_locked', 423, '1']);
      expect((await userRow(userId)).pinFailedAttempts).toBe(attempt);
      now = new Date(now.getTime() + lockMs);
    }

    const disabled = await appError(verifyPin({ userId, pin: WRONG, now }));
    expect([disabled.code, disabled.status]).toEqual(['pin_disabled', 423]);
    expect(disabled.message).toMatch(/No phone linked: the PIN cannot be reset/);
    const row = await userRow(userId);
    expect([row.pinFailedAttempts, row.pinDisabledAt, row.pinLockedUntil]).toEqual([10, now, null]);
    // Disabled for good: a day later the right PIN still does not work.
    const later = await appError(verifyPin({ userId, pin: PIN, now: new Date(now.getTime() + 24 * 60 * MINUTE) }));
    expect(later.code).toBe('pin_disabled');
    expect(await pinStatus(userId, { now })).toEqual({ isSet: true, lockedUntil: null, disabled: true, attemptsLeft: 0 });
  });

  it('after a lock ends the right PIN works again and clears the count and the lock', async () => {
    const userId = await newUser({ pin: PIN });
    const t0 = new Date();
    for (let i = 0; i < 5; i++) await appError(verifyPin({ userId, pin: WRONG, now: t0 }));
    await verifyPin({ userId, pin: PIN, now: new Date(t0.getTime() + MINUTE) });
    const row = await userRow(userId);
    expect([row.pinFailedAttempts, row.pinLockedUntil]).toEqual([0, null]);
  });

  it('while locked the PIN is not even looked at', async () => {
    const userId = await newUser({ pin: PIN });
    // A stored hash argon2 cannot parse: checking it would throw something other than pin_locked.
    await getDb()
      .update(users)
      .set({ pinHash: 'not-an-argon2-hash', pinFailedAttempts: 5, pinLockedUntil: new Date(Date.now() + 30_000) })
      .where(eq(users.id, userId));
    const error = await appError(verifyPin({ userId, pin: WRONG }));
    expect(error.code).toBe('pin_locked');
    expect(Number(error.headers?.['retry-after'])).toBeGreaterThanOrEqual(29);
    expect(Number(error.headers?.['retry-after'])).toBeLessThanOrEqual(30);
    expect((await userRow(userId)).pinFailedAttempts).toBe(5);
  });

  it('a lock survives a restart: it lives in the database', async () => {
    const userId = await newUser({ pin: PIN });
    for (let i = 0; i < 5; i++) await appError(verifyPin({ userId, pin: WRONG }));
    await closeDb();
    resetEnvCache();
    const error = await appError(verifyPin({ userId, pin: PIN }));
    expect(error.code).toBe('pin_locked');
    expect((await pinStatus(userId)).lockedUntil).toBeInstanceOf(Date);
  });

  it('concurrent wrong PINs all count, and a burst cannot run past the lock', async () => {
    const pair = await newUser({ pin: PIN });
    const both = await Promise.allSettled([verifyPin({ userId: pair, pin: WRONG }), verifyPin({ userId: pair, pin: '602718' })]);
    expect(both.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect((await userRow(pair)).pinFailedAttempts).toBe(2);

    const burst = await newUser({ pin: PIN });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => verifyPin({ userId: burst, pin: WRONG })));
    const codes = results.map((r) => (r.status === 'rejected' && r.reason instanceof AppError ? r.reason.code : 'other'));
    expect(codes.filter((c) => c === 'pin_incorrect')).toHaveLength(5);
    expect(codes.filter((c) => c === 'pin_locked')).toHaveLength(3);
    expect((await userRow(burst)).pinFailedAttempts).toBe(5);
  });

  it("a wrong PIN counts even when the caller's transaction rolls back", async () => {
    const userId = await newUser({ pin: PIN });
    const error = await appError(getDb().transaction((tx) => verifyPin({ userId, pin: WRONG, tx })));
    expect(error.code).toBe('pin_incorrect');
    expect((await userRow(userId)).pinFailedAttempts).toBe(1);
    await getDb().transaction((tx) => verifyPin({ userId, pin: PIN, tx }));
    expect((await userRow(userId)).pinFailedAttempts).toBe(0);
  });
});
