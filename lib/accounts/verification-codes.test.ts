import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { users, verificationCodes } from '@/lib/db/schema';
import { newId, randomBase62 } from '@/lib/ids';
import { appError } from '@/test/accounts';
import { derivedKey, hmacHex } from './derived-key';
import { CODE_TTL_MS, consumeCode, issueCode } from './verification-codes';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** An address of its own for each test: codes are kept per purpose and address. */
function newTarget(): string {
  return `vc-${randomBase62(10).toLowerCase()}@example.test`;
}

function later(from: Date, ms: number): Date {
  return new Date(from.getTime() + ms);
}

async function rows(target: string) {
  return getDb().select().from(verificationCodes).where(eq(verificationCodes.target, target));
}

/** A 6-digit code that is not `code`. */
function otherThan(code: string): string {
  return String((Number(code) + 1) % 1_000_000).padStart(6, '0');
}

describe('issueCode', () => {
  it('makes a 6-digit code valid 10 minutes and stores only its HMAC', async () => {
    const target = newTarget();
    const now = new Date();
    const { code, expiresAt } = await issueCode({ purpose: 'signin', target, now });
    expect(code).toMatch(/^\d{6}$/);
    expect(expiresAt).toEqual(later(now, 10 * MINUTE));
    expect(CODE_TTL_MS).toBe(10 * MINUTE);

    const [row, ...more] = await rows(target);
    expect(more).toEqual([]);
    expect(row!.codeHash).toBe(hmacHex(derivedKey('verification-codes'), `signin\n${target}\n${code}`));
    expect(row!.codeHash).not.toBe(createHash('sha256').update(code).digest('hex'));
    for (const [column, value] of Object.entries(row!)) {
      expect([column, String(value instanceof Date ? value.toISOString() : value).includes(code)]).toEqual([column, false]);
    }
  });

  it('voids the earlier code when a new one is issued', async () => {
    const target = newTarget();
    const t0 = new Date();
    const first = await issueCode({ purpose: 'verify_email', target, now: t0 });
    const second = await issueCode({ purpose: 'verify_email', target, now: later(t0, 61 * SECOND) });
    const at = later(t0, 62 * SECOND);
    if (first.code !== second.code) {
      expect((await appError(consumeCode({ purpose: 'verify_email', target, code: first.code, now: at }))).code).toBe('code_incorrect');
    }
    await consumeCode({ purpose: 'verify_email', target, code: second.code, now: at });
  });

  it('keeps purposes and addresses apart', async () => {
    const target = newTarget();
    const { code } = await issueCode({ purpose: 'signup', target });
    expect((await appError(consumeCode({ purpose: 'signin', target, code }))).code).toBe('code_expired');
    expect((await appError(consumeCode({ purpose: 'signup', target: newTarget(), code }))).code).toBe('code_expired');
    await consumeCode({ purpose: 'signup', target, code });
  });

  it('throttles re-sending: one code per 60 s, with Retry-After', async () => {
    const target = newTarget();
    const t0 = new Date();
    await issueCode({ purpose: 'signin', target, now: t0 });
    const error = await appError(issueCode({ purpose: 'signin', target, now: later(t0, 25 * SECOND) }));
    expect([error.code, error.status, error.headers]).toEqual(['rate_limited', 429, { 'retry-after': '35' }]);
    expect(error.message).toMatch(/35 s/);
    // Another purpose or address is not held back.
    await issueCode({ purpose: 'signup', target, now: later(t0, 25 * SECOND) });
    await issueCode({ purpose: 'signin', target: newTarget(), now: later(t0, 25 * SECOND) });
    await issueCode({ purpose: 'signin', target, now: later(t0, 60 * SECOND) });
  });

  it('allows at most 10 codes per hour for a purpose and address', async () => {
    const target = newTarget();
    const t0 = new Date();
    for (let i = 0; i < 10; i++) await issueCode({ purpose: 'signin', target, now: later(t0, i * 61 * SECOND) });
    const error = await appError(issueCode({ purpose: 'signin', target, now: later(t0, 10 * 61 * SECOND) }));
    expect([error.code, error.headers]).toEqual(['rate_limited', { 'retry-after': '3600' }]);
    expect(error.message).toMatch(/Too many codes/);
    // Once the first of them is more than an hour old, one more is allowed.
    await issueCode({ purpose: 'signin', target, now: later(t0, 60 * MINUTE + SECOND) });
  });
});

describe('consumeCode', () => {
  it('accepts the right code once; a second use is code_expired', async () => {
    const target = newTarget();
    const { code } = await issueCode({ purpose: 'signin', target });
    expect(await consumeCode({ purpose: 'signin', target, code })).toEqual({ userId: null });
    const error = await appError(consumeCode({ purpose: 'signin', target, code }));
    expect([error.code, error.status, error.param]).toEqual(['code_expired', 400, 'code']);
    expect((await rows(target))[0]!.consumedAt).toBeInstanceOf(Date);
  });

  it('expires 10 minutes after it was issued', async () => {
    const target = newTarget();
    const t0 = new Date();
    const { code } = await issueCode({ purpose: 'signin', target, now: t0 });
    const expired = await appError(consumeCode({ purpose: 'signin', target, code, now: later(t0, 10 * MINUTE) }));
    expect(expired.code).toBe('code_expired');

    const fresh = newTarget();
    const { code: freshCode } = await issueCode({ purpose: 'signin', target: fresh, now: t0 });
    await consumeCode({ purpose: 'signin', target: fresh, code: freshCode, now: later(t0, 10 * MINUTE - SECOND) });
  });

  it('counts each wrong try even though the call fails, and dies after 5 (even for the right code)', async () => {
    const target = newTarget();
    const { code } = await issueCode({ purpose: 'signin', target });
    const wrong = otherThan(code);
    const messages: string[] = [];
    for (let i = 1; i <= 4; i++) {
      const error = await appError(consumeCode({ purpose: 'signin', target, code: wrong }));
      expect([error.code, error.status, error.param]).toEqual(['code_incorrect', 400, 'code']);
      messages.push(error.message);
      expect((await rows(target))[0]!.attempts).toBe(i);
    }
    expect(messages).toEqual([
      'That code is not right. 4 tries left.',
      'That code is not right. 3 tries left.',
      'That code is not right. 2 tries left.',
      'That code is not right. 1 try left.',
    ]);
    const fifth = await appError(consumeCode({ purpose: 'signin', target, code: wrong }));
    expect([fifth.code, fifth.status]).toEqual(['code_attempts_exceeded', 429]);
    const right = await appError(consumeCode({ purpose: 'signin', target, code }));
    expect(right.code).toBe('code_attempts_exceeded');
    const [row] = await rows(target);
    expect([row!.attempts, row!.consumedAt]).toEqual([5, null]);
  });

  it('a malformed code is a wrong try', async () => {
    const target = newTarget();
    await issueCode({ purpose: 'signin', target });
    for (const code of ['', '12345', 'abcdef', '1234567']) {
      expect((await appError(consumeCode({ purpose: 'signin', target, code }))).code).toMatch(/^code_(incorrect|attempts_exceeded)$/);
    }
    expect((await rows(target))[0]!.attempts).toBe(4);
  });

  it('returns the user the code was issued for', async () => {
    const userId = newId('user');
    await getDb()
      .insert(users)
      .values({ id: userId, email: `${userId.toLowerCase()}@example.test`, signUpMethod: 'email' });
    const target = newTarget();
    const { code } = await issueCode({ purpose: 'signin', target, userId });
    expect(await consumeCode({ purpose: 'signin', target, code })).toEqual({ userId });
  });

  it('concurrent tries: wrong ones all count, and the right code is accepted only once', async () => {
    const target = newTarget();
    const { code } = await issueCode({ purpose: 'signin', target });
    const wrong = otherThan(code);
    await Promise.allSettled([0, 1, 2].map(() => consumeCode({ purpose: 'signin', target, code: wrong })));
    expect((await rows(target))[0]!.attempts).toBe(3);

    const results = await Promise.allSettled([0, 1, 2].map(() => consumeCode({ purpose: 'signin', target, code })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
  });
});

describe('limits that do not punish the honest user', () => {
  it('a code that was used does not throttle the next request: signing out and in again asks at once', async () => {
    const target = newTarget();
    const now = new Date();
    const first = await issueCode({ purpose: 'signin', target, now });
    await consumeCode({ purpose: 'signin', target, code: first.code, now: later(now, 5 * SECOND) });
    // Ten seconds later: a new code, not "ask again in 50 s".
    const second = await issueCode({ purpose: 'signin', target, now: later(now, 10 * SECOND) });
    expect(second.code).toMatch(/^\d{6}$/);
    // An unused code still throttles a retry.
    expect((await appError(issueCode({ purpose: 'signin', target, now: later(now, 20 * SECOND) }))).code).toBe('rate_limited');
  });

  it('ten sign-ins in an hour, each code used, are never refused', async () => {
    const target = newTarget();
    const start = new Date();
    for (let i = 0; i < 12; i++) {
      const at = later(start, i * 2 * MINUTE);
      const { code } = await issueCode({ purpose: 'signin', target, now: at });
      await consumeCode({ purpose: 'signin', target, code, now: later(at, SECOND) });
    }
  });
});

describe('the daily cap of wrong codes per address', () => {
  it('after 20 wrong codes in 24 hours, even a fresh code is refused until the day has passed', async () => {
    const target = newTarget();
    const start = new Date();
    let at = start;
    let wrong = 0;
    let last = '';
    while (wrong < 20) {
      // A fresh code every 5 wrong tries (each code dies after 5), 2 minutes apart: no resend throttle.
      at = later(at, 2 * MINUTE);
      last = (await issueCode({ purpose: 'signin', target, now: at })).code;
      for (let i = 0; i < 5 && wrong < 20; i++, wrong++) {
        await appError(consumeCode({ purpose: 'signin', target, code: otherThan(last), now: at }));
      }
    }
    at = later(at, 2 * MINUTE);
    const fresh = await issueCode({ purpose: 'signin', target, now: at });
    const refused = await appError(consumeCode({ purpose: 'signin', target, code: fresh.code, now: at }));
    expect(refused).toMatchObject({ code: 'code_attempts_exceeded', message: expect.stringMatching(/today/) });
    // The right code was not used up by the refusal: nothing was checked.
    const [row] = (await rows(target)).filter(
      (r) => r.codeHash === hmacHex(derivedKey('verification-codes'), `signin\n${target}\n${fresh.code}`),
    );
    expect(row!.consumedAt).toBeNull();
    expect(last).not.toBe('');
  });
});
