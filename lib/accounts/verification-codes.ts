/**
 * One-time 6-digit codes (e-mail sign-up/sign-in, e-mail verification, phone linking, PIN reset).
 *
 *  - random (CSPRNG), single use, valid 10 minutes;
 *  - stored as HMAC-SHA256 keyed with a secret derived from AUTH_SECRET (a 6-digit code under a plain
 *    hash falls to a million guesses; without the key a database dump gives nothing);
 *  - at most 5 wrong tries per code, then it is dead and a new one must be requested; and at most
 *    CODE_WRONG_PER_DAY wrong codes per address over 24 hours, whatever the purpose (new codes do not
 *    buy new guesses);
 *  - re-sending is throttled: one code per purpose and address per 60 s, and 10 per hour. A code that
 *    was used (the user signed in with it) does not count: asking for the next one is not a retry.
 *
 * Only the latest code for a purpose and address counts: issuing a new one voids the older ones.
 */
import { randomInt } from 'node:crypto';
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import { env } from '@/lib/env';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { verificationCodes, type CodePurpose } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { newId } from '@/lib/ids';
import { derivedKey, equalHex, hmacHex } from './derived-key';

export const CODE_TTL_MS = 10 * 60_000;
const CODE_MAX_ATTEMPTS = 5;
const CODE_RESEND_INTERVAL_MS = 60_000;
const CODE_MAX_PER_HOUR = 10;
const DAY_MS = 24 * 3_600_000;

function hashCode(purpose: CodePurpose, target: string, code: string): string {
  return hmacHex(derivedKey('verification-codes'), `${purpose}\n${target}\n${code}`);
}

export async function issueCode(input: {
  purpose: CodePurpose;
  target: string;
  userId?: string;
  tx?: DbOrTx;
  now?: Date;
}): Promise<{ code: string; expiresAt: Date }> {
  const db = input.tx ?? getDb();
  const now = input.now ?? new Date();
  const recent = await db
    .select({ createdAt: verificationCodes.createdAt })
    .from(verificationCodes)
    .where(
      and(
        eq(verificationCodes.purpose, input.purpose),
        eq(verificationCodes.target, input.target),
        gt(verificationCodes.createdAt, new Date(now.getTime() - 60 * 60_000)),
        isNull(verificationCodes.consumedAt),
      ),
    )
    .orderBy(desc(verificationCodes.createdAt));
  const last = recent[0];
  if (last && now.getTime() - last.createdAt.getTime() < CODE_RESEND_INTERVAL_MS) {
    const wait = Math.ceil((CODE_RESEND_INTERVAL_MS - (now.getTime() - last.createdAt.getTime())) / 1000);
    throw new AppError('rate_limited', `A code was just sent. You can ask for a new one in ${wait} s.`, {
      headers: { 'retry-after': String(wait) },
    });
  }
  if (recent.length >= CODE_MAX_PER_HOUR) {
    throw new AppError('rate_limited', 'Too many codes requested for this address. Try again in an hour.', {
      headers: { 'retry-after': '3600' },
    });
  }
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
  await db.insert(verificationCodes).values({
    id: newId('verificationCode'),
    purpose: input.purpose,
    target: input.target,
    userId: input.userId ?? null,
    codeHash: hashCode(input.purpose, input.target, code),
    expiresAt,
    createdAt: now,
  });
  return { code, expiresAt };
}

/**
 * Checks a code and uses it up. A wrong code counts against the code's tries even though the call
 * fails (the count is committed before the error is thrown).
 */
export async function consumeCode(input: {
  purpose: CodePurpose;
  target: string;
  code: string;
  now?: Date;
}): Promise<{ userId: string | null }> {
  const now = input.now ?? new Date();
  const outcome = await getDb().transaction(async (tx) => {
    const [latest] = await tx
      .select()
      .from(verificationCodes)
      .where(and(eq(verificationCodes.purpose, input.purpose), eq(verificationCodes.target, input.target)))
      .orderBy(desc(verificationCodes.createdAt))
      .limit(1)
      .for('update');
    if (!latest || latest.consumedAt || latest.expiresAt <= now) return { kind: 'expired' as const };
    if (latest.attempts >= CODE_MAX_ATTEMPTS) return { kind: 'exhausted' as const };
    const [today] = await tx
      .select({ wrong: sql<number>`coalesce(sum(${verificationCodes.attempts}), 0)`.mapWith(Number) })
      .from(verificationCodes)
      .where(and(eq(verificationCodes.target, input.target), gt(verificationCodes.createdAt, new Date(now.getTime() - DAY_MS))));
    if (today!.wrong >= env().CODE_WRONG_PER_DAY) return { kind: 'daily_cap' as const };
    const matches = /^\d{6}$/.test(input.code) && equalHex(latest.codeHash, hashCode(input.purpose, input.target, input.code));
    if (!matches) {
      await tx
        .update(verificationCodes)
        .set({ attempts: sql`${verificationCodes.attempts} + 1` })
        .where(eq(verificationCodes.id, latest.id));
      const left = CODE_MAX_ATTEMPTS - latest.attempts - 1;
      return left > 0 ? { kind: 'wrong' as const, left } : { kind: 'exhausted' as const };
    }
    await tx
      .update(verificationCodes)
      .set({ consumedAt: now })
      .where(and(eq(verificationCodes.id, latest.id), isNull(verificationCodes.consumedAt)));
    return { kind: 'ok' as const, userId: latest.userId };
  });
  switch (outcome.kind) {
    case 'ok':
      return { userId: outcome.userId };
    case 'wrong':
      throw new AppError('code_incorrect', `That code is not right. ${outcome.left} ${outcome.left === 1 ? 'try' : 'tries'} left.`, {
        param: 'code',
      });
    case 'exhausted':
      throw new AppError('code_attempts_exceeded', 'Too many wrong codes. Ask for a new code.', { param: 'code' });
    case 'daily_cap':
      throw new AppError('code_attempts_exceeded', 'Too many wrong codes for this address today. Try again tomorrow.', {
        param: 'code',
        headers: { 'retry-after': String(DAY_MS / 1000) },
      });
    case 'expired':
      throw new AppError('code_expired', 'This code has expired or was already used. Ask for a new code.', { param: 'code' });
  }
}
