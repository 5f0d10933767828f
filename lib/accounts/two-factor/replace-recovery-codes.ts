/**
 * New recovery codes on request (Account → Security): only with two-factor sign-in on, confirmed
 * like a factor change (factor-change-proof.ts); the old codes stop working and the account's address
 * is told.
 */
import 'server-only';
import { AppError } from '@/lib/errors';
import { notifySecurityChange } from '../notify-security-change';
import { verifyFactorChangeProof, type FactorChangeProof } from './factor-change-proof';
import { renewRecoveryCodes } from './recovery-codes';
import { hasSecondFactor } from './second-factor';

export async function replaceRecoveryCodes(input: { userId: string; proof: FactorChangeProof; ip?: string | null }): Promise<string[]> {
  if (!(await hasSecondFactor(input.userId))) throw new AppError('invalid_request', 'Turn on two-factor sign-in first.');
  await verifyFactorChangeProof({ userId: input.userId, proof: input.proof, attempt: { action: 'recovery_codes_renew', ip: input.ip } });
  const codes = await renewRecoveryCodes(input.userId);
  await notifySecurityChange({ userId: input.userId, change: { kind: 'recovery_codes_renewed' }, ip: input.ip });
  return codes;
}
