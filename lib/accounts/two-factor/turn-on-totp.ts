/**
 * Turns on the authenticator app for a signed-in account (Account → Security): the secret is handed
 * out freely (startTotpEnrolment), but the app is turned on only when the same call carries a
 * factor-change proof (factor-change-proof.ts) and the app's first right code. The proof is checked
 * first: without it no code is even tried. The account's address is told.
 */
import 'server-only';
import { notifySecurityChange } from '../notify-security-change';
import { verifyFactorChangeProof, type FactorChangeProof } from './factor-change-proof';
import { confirmTotpEnrolment } from './totp';

export async function turnOnTotp(input: { userId: string; code: string; proof: FactorChangeProof; ip?: string | null }): Promise<void> {
  await verifyFactorChangeProof({ userId: input.userId, proof: input.proof, attempt: { action: 'totp_on', ip: input.ip } });
  await confirmTotpEnrolment({ userId: input.userId, code: input.code });
  await notifySecurityChange({ userId: input.userId, change: { kind: 'totp_on' }, ip: input.ip });
}
