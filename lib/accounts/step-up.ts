/**
 * Step-up: money and ownership changes need more than a session — the acting user's PIN, or one of
 * their passkeys (a fresh assertion with user verification, for a challenge issued for this purpose).
 * Used by withdrawals, key exports, production keys, webhook endpoint changes in live mode, inviting
 * or promoting owners and admins, and the e-mail change.
 */
import 'server-only';
import type { DbOrTx } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { verifyPin } from './pin';
import { verifyPasskeyAssertion } from './two-factor/passkeys';

/** What a form sends: the PIN, or the JSON of a passkey assertion (from stepUpPasskeyOptionsAction). */
export interface StepUpProof {
  pin?: string;
  passkeyResponse?: string;
}

/**
 * Throws unless the proof confirms the user: PIN errors as verifyPin (counted, locked, disabled),
 * a passkey that does not verify → step_up_failed. With `tx` and a PIN, the PIN is held for the
 * caller's transaction (see verifyPin).
 */
export async function verifyStepUp(input: { userId: string; proof: StepUpProof; tx?: DbOrTx }): Promise<void> {
  if (input.proof.passkeyResponse) {
    if (await verifyPasskeyAssertion({ userId: input.userId, ceremony: 'step_up', response: input.proof.passkeyResponse })) return;
    throw new AppError('step_up_failed', 'The passkey did not confirm it is you. Try again, or enter your PIN.', { param: 'pin' });
  }
  if (!input.proof.pin)
    throw new AppError('step_up_required', 'Confirm with your PIN (or a passkey): this change needs more than a session.', {
      param: 'pin',
    });
  await verifyPin({ userId: input.userId, pin: input.proof.pin, tx: input.tx });
}
