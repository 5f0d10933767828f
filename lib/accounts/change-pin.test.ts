import { describe, expect, it } from 'vitest';
import { appError, newUser, userRow } from '@/test/accounts';
import { changePin } from './change-pin';
import { verifyPin } from './verify-pin';

const PIN = '482916';
const NEW_PIN = '730481';
const WRONG = '519273';

describe('changePin', () => {
  it('needs the current PIN, counted like any PIN entry', async () => {
    const userId = await newUser({ pin: PIN });
    const error = await appError(changePin({ userId, oldPin: WRONG, pin: NEW_PIN, confirm: NEW_PIN }));
    expect([error.code, error.param]).toEqual(['pin_incorrect', 'oldPin']);
    expect((await userRow(userId)).pinFailedAttempts).toBe(1);
    await verifyPin({ userId, pin: PIN });

    await changePin({ userId, oldPin: PIN, pin: NEW_PIN, confirm: NEW_PIN });
    await verifyPin({ userId, pin: NEW_PIN });
    expect((await appError(verifyPin({ userId, pin: PIN }))).code).toBe('pin_incorrect');
  });

  it('checks the new PIN first, so a typo in it costs no attempt', async () => {
    const userId = await newUser({ pin: PIN });
    expect((await appError(changePin({ userId, oldPin: WRONG, pin: '111111', confirm: '111111' }))).code).toBe('pin_too_simple');
    expect((await appError(changePin({ userId, oldPin: WRONG, pin: NEW_PIN, confirm: PIN }))).param).toBe('confirm');
    expect((await userRow(userId)).pinFailedAttempts).toBe(0);
  });

  it('is refused while locked, and without a PIN', async () => {
    const locked = await newUser({ pin: PIN });
    for (let i = 0; i < 5; i++) await appError(verifyPin({ userId: locked, pin: WRONG }));
    const error = await appError(changePin({ userId: locked, oldPin: PIN, pin: NEW_PIN, confirm: NEW_PIN }));
    expect([error.code, error.param, error.headers?.['retry-after']]).toEqual(['pin_locked', 'oldPin', expect.any(String)]);
    const none = await newUser();
    expect((await appError(changePin({ userId: none, oldPin: PIN, pin: NEW_PIN, confirm: NEW_PIN }))).code).toBe('pin_not_set');
  });
});
