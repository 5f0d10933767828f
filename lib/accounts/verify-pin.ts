/**
 * Checking the account PIN: six digits that confirm sensitive actions (payments and private-key
 * exports, spec account rule 5; unlinking the phone, …). A PIN is guessed online only slowly: from the
 * 5th wrong PIN in a row each wrong PIN locks it for longer (1 min, 5 min, 15 min, 1 h, 4 h) and the
 * 10th disables it until it is reset through the linked phone (reset-pin-with-phone.ts). Counter, lock
 * and disabled mark are columns of `users`: they survive restarts and bind every process alike. A
 * right PIN resets the counter. changePin checks the current PIN here too (checkPin).
 *
 * The rest of the PIN: what one may be, assert-new-pin.ts; how it is stored (argon2id keyed with
 * PIN_PEPPER), hash-pin.ts; the first one, set-pin.ts and set-first-pin.ts; what the pages show,
 * pin-status.ts. Every PIN set from a session, change and reset e-mails the account.
 *
 * Invariant: an attempt is counted and committed in its own short transaction BEFORE the PIN is
 * checked, and only a right PIN takes it back. So concurrent attempts all count and serialise on the
 * row lock, a burst cannot run past a lock, the argon2 work never holds a row lock, and a caller's
 * transaction rolling back never forgives a wrong PIN.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { PIN_LENGTH } from './assert-new-pin';
import { matchesPinHash } from './hash-pin';

/** The wrong PIN in a row that brings the first lock. */
const PIN_LOCK_AFTER = 5;
/** The wrong PIN in a row that disables the PIN until a reset through the phone. */
export const PIN_DISABLE_AFTER = 10;
/** Lock after the 5th, 6th, … 9th wrong PIN in a row. */
const PIN_LOCK_SCHEDULE_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 4 * 60 * 60_000] as const;

/** What the n-th wrong PIN in a row brings. */
function penaltyAfter(failedAttempts: number): { kind: 'none' } | { kind: 'lock'; ms: number } | { kind: 'disable' } {
  if (failedAttempts >= PIN_DISABLE_AFTER) return { kind: 'disable' };
  const ms = PIN_LOCK_SCHEDULE_MS[failedAttempts - PIN_LOCK_AFTER];
  return ms === undefined ? { kind: 'none' } : { kind: 'lock', ms };
}

/** "45 seconds", "5 minutes", "4 hours". */
function formatWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  if (seconds < 60) return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
  const minutes = Math.ceil(seconds / 60);
  if (minutes < 60) return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return `${hours} ${hours === 1 ? 'hour' : 'hours'}${rest ? ` ${rest} min` : ''}`;
}

function retryAfter(until: Date, now: Date): Record<string, string> {
  return { 'retry-after': String(Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000))) };
}

function lockedError(until: Date, now: Date): AppError {
  return new AppError('pin_locked', `Too many wrong PINs. Try again in ${formatWait(until.getTime() - now.getTime())}.`, {
    param: 'pin',
    headers: retryAfter(until, now),
  });
}

function disabledError(hasPhone: boolean, prefix = ''): AppError {
  const how = hasPhone
    ? 'Reset it with a code sent to your linked phone.'
    : 'No phone linked: the PIN cannot be reset here. Contact support.';
  return new AppError('pin_disabled', `${prefix}After ${PIN_DISABLE_AFTER} wrong PINs the PIN is disabled. ${how}`, { param: 'pin' });
}

function notSetError(): AppError {
  return new AppError('pin_not_set', 'No PIN is set for this account. Set a PIN first.', { param: 'pin' });
}

/**
 * Counts one attempt (committed), unless the PIN is missing, locked or disabled: then it refuses
 * without counting and without looking at the PIN.
 */
async function claimAttempt(userId: string, now: Date) {
  return getDb().transaction(async (tx) => {
    // A caller holding this user's row in its own transaction would otherwise wait here forever.
    await tx.execute(sql`set local lock_timeout = '5s'`);
    const [user] = await tx
      .select({
        pinHash: users.pinHash,
        failed: users.pinFailedAttempts,
        lockedUntil: users.pinLockedUntil,
        disabledAt: users.pinDisabledAt,
        phoneVerifiedAt: users.phoneVerifiedAt,
      })
      .from(users)
      .where(eq(users.id, userId))
      .for('update');
    if (!user) throw new AppError('not_found', `No account ${userId}.`);
    const hasPhone = user.phoneVerifiedAt !== null;
    if (!user.pinHash) throw notSetError();
    if (user.disabledAt) throw disabledError(hasPhone);
    if (user.lockedUntil && user.lockedUntil > now) throw lockedError(user.lockedUntil, now);
    const failed = user.failed + 1;
    const penalty = penaltyAfter(failed);
    const lockedUntil = penalty.kind === 'lock' ? new Date(now.getTime() + penalty.ms) : null;
    await tx
      .update(users)
      .set({ pinFailedAttempts: failed, pinLockedUntil: lockedUntil, pinDisabledAt: penalty.kind === 'disable' ? now : null })
      .where(eq(users.id, userId));
    return { pinHash: user.pinHash, failed, penalty, lockedUntil, hasPhone };
  });
}

/**
 * Checks the PIN; throws pin_not_set, pin_locked (423, Retry-After), pin_disabled or pin_incorrect.
 * Returns the verified hash so callers can make their write conditional on it.
 */
export async function checkPin(input: { userId: string; pin: string; now?: Date }): Promise<string> {
  const now = input.now ?? new Date();
  if (typeof input.pin !== 'string' || !/^\d{6}$/.test(input.pin)) {
    throw new AppError('invalid_request', `Enter your ${PIN_LENGTH}-digit PIN.`, { param: 'pin' });
  }
  const attempt = await claimAttempt(input.userId, now);
  const isRight = await matchesPinHash(attempt.pinHash, input.pin);
  if (isRight) {
    // Take the attempt back. Only the attempt that disabled the PIN may lift that mark: a PIN disabled
    // by another attempt meanwhile stays disabled until a reset through the phone.
    const [reset] = await getDb()
      .update(users)
      .set({ pinFailedAttempts: 0, pinLockedUntil: null, pinDisabledAt: null })
      .where(
        and(
          eq(users.id, input.userId),
          eq(users.pinHash, attempt.pinHash),
          attempt.penalty.kind === 'disable' ? undefined : isNull(users.pinDisabledAt),
        ),
      )
      .returning({ id: users.id });
    if (!reset) throw disabledError(attempt.hasPhone);
    return attempt.pinHash;
  }
  switch (attempt.penalty.kind) {
    case 'none': {
      const left = PIN_LOCK_AFTER - attempt.failed;
      throw new AppError('pin_incorrect', `Wrong PIN. ${left} ${left === 1 ? 'try' : 'tries'} left before the PIN is locked for a while.`, {
        param: 'pin',
      });
    }
    case 'lock': {
      const left = PIN_DISABLE_AFTER - attempt.failed;
      throw new AppError(
        'pin_incorrect',
        `Wrong PIN. The PIN is locked for ${formatWait(attempt.penalty.ms)}; ${left} more wrong ${left === 1 ? 'PIN disables' : 'PINs disable'} it.`,
        { param: 'pin', headers: retryAfter(attempt.lockedUntil!, now) },
      );
    }
    case 'disable':
      throw disabledError(attempt.hasPhone, 'Wrong PIN. ');
  }
}

/**
 * Confirms an action with the user's PIN; throws when it is wrong, missing, locked or disabled.
 *
 * The attempt is always recorded in its own transaction, never in `tx`: a wrong PIN must count even
 * though the caller's transaction rolls back. With `tx`, the user's row is then share-locked in it
 * with the PIN just verified, so the PIN cannot be changed, reset or disabled before the caller's
 * action commits. Do not lock the user's row in `tx` before calling (the attempt would wait on it).
 */
export async function verifyPin(input: { userId: string; pin: string; tx?: DbOrTx; now?: Date }): Promise<void> {
  const pinHash = await checkPin(input);
  if (!input.tx) return;
  const [held] = await input.tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, input.userId), eq(users.pinHash, pinHash), isNull(users.pinDisabledAt)))
    .for('share');
  if (!held) throw new AppError('pin_incorrect', 'The PIN was changed meanwhile. Enter the current PIN.', { param: 'pin' });
}
