/**
 * Removes a passkey or the authenticator app (Account → Security), confirmed like adding one
 * (factor-change-proof.ts). With no second factor left, the recovery codes go too. The account's
 * address is told.
 */
import 'server-only';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { passkeys } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { notifySecurityChange } from '../notify-security-change';
import { verifyFactorChangeProof, type FactorChangeProof } from './factor-change-proof';
import { removePasskey } from './passkeys';
import { deleteRecoveryCodes } from './recovery-codes';
import { hasSecondFactor, secondFactorsOf } from './second-factor';
import { removeTotp } from './totp';

export async function removeSecondFactor(input: {
  userId: string;
  factor: { kind: 'passkey'; passkeyId: string } | { kind: 'totp' };
  proof: FactorChangeProof;
  ip?: string | null;
}): Promise<void> {
  const { factor } = input;
  // What is to be removed exists, before the proof is spent on it.
  let name = '';
  if (factor.kind === 'passkey') {
    const [key] = await getDb()
      .select({ name: passkeys.name })
      .from(passkeys)
      .where(and(eq(passkeys.id, factor.passkeyId), eq(passkeys.userId, input.userId)));
    if (!key) throw new AppError('not_found', 'No such passkey on this account.', { param: 'passkeyId' });
    name = key.name;
  } else if (!(await secondFactorsOf(input.userId)).totp) {
    throw new AppError('not_found', 'No authenticator app is turned on.');
  }
  await verifyFactorChangeProof({
    userId: input.userId,
    proof: input.proof,
    attempt: { action: factor.kind === 'passkey' ? 'passkey_remove' : 'totp_off', ip: input.ip },
  });
  if (factor.kind === 'passkey') await removePasskey({ userId: input.userId, passkeyId: factor.passkeyId });
  else await removeTotp(input.userId);
  if (!(await hasSecondFactor(input.userId))) await deleteRecoveryCodes(input.userId);
  await notifySecurityChange({
    userId: input.userId,
    change: factor.kind === 'passkey' ? { kind: 'passkey_removed', name } : { kind: 'totp_off' },
    ip: input.ip,
  });
}
