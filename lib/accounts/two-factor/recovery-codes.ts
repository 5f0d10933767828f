/**
 * Recovery codes: ten one-time codes shown once when two-factor sign-in is turned on (or renewed),
 * for when the authenticator app or passkey is lost. Kept only as HMACs keyed with a secret derived
 * from AUTH_SECRET; each works once; renewing them voids the old ones.
 */
import 'server-only';
import { randomInt } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { getDb, type DbOrTx } from '@/lib/db/client';
import { recoveryCodes } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { derivedKey, hmacHex } from '../derived-key';

const COUNT = 10;
/** No 0/O, 1/I/L: codes are read from paper. 10 characters of 31 ≈ 50 bits. */
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** "ABCDE-FGHJK" → "ABCDEFGHJK": dashes, spaces and case do not matter. */
function canonical(code: string): string {
  return code.toUpperCase().replace(/[^0-9A-Z]/g, '');
}

function hashRecoveryCode(userId: string, code: string): string {
  return hmacHex(derivedKey('recovery-codes'), `${userId}\n${canonical(code)}`);
}

/** New codes (the old ones stop working); returned once, as "XXXXX-XXXXX". */
export async function renewRecoveryCodes(userId: string, db: DbOrTx = getDb()): Promise<string[]> {
  const codes = Array.from({ length: COUNT }, () => {
    const raw = Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${raw.slice(0, 5)}-${raw.slice(5)}`;
  });
  await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
  await db
    .insert(recoveryCodes)
    .values(codes.map((code) => ({ id: newId('recoveryCode'), userId, codeHash: hashRecoveryCode(userId, code) })));
  return codes;
}

/** Uses one code up; false when it is unknown or already used. */
export async function redeemRecoveryCode(input: { userId: string; code: string }): Promise<boolean> {
  if (canonical(input.code).length !== 10) return false;
  const [used] = await getDb()
    .update(recoveryCodes)
    .set({ usedAt: new Date() })
    .where(
      and(
        eq(recoveryCodes.userId, input.userId),
        eq(recoveryCodes.codeHash, hashRecoveryCode(input.userId, input.code)),
        isNull(recoveryCodes.usedAt),
      ),
    )
    .returning({ id: recoveryCodes.id });
  return used !== undefined;
}

export async function countUnusedRecoveryCodes(userId: string): Promise<number> {
  const rows = await getDb()
    .select({ id: recoveryCodes.id })
    .from(recoveryCodes)
    .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
  return rows.length;
}

export async function deleteRecoveryCodes(userId: string, db: DbOrTx = getDb()): Promise<void> {
  await db.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
}
