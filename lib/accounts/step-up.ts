/**
 * Step-up: money and ownership changes need more than a session — the acting user's PIN, or one of
 * their passkeys (a fresh assertion with user verification, for a challenge issued for this purpose).
 * Used by withdrawals, key exports, production keys, webhook endpoint changes in live mode, inviting
 * or promoting owners and admins, the e-mail change, and (in test mode, see below) second-factor
 * changes (two-factor/factor-change-proof.ts).
 *
 * `mode` says what is confirmed: in live mode a passkey added less than FACTOR_COOLING_HOURS ago is
 * refused (factor_cooling_down, two-factor/factor-usable-from.ts); test mode never waits. Callers pass
 * the dashboard's mode, or 'live' for what acts on real funds or ownership whatever the mode (key
 * exports, members, e-mail change, production keys).
 *
 * Every refusal (no proof, a wrong one, a cooling passkey) is recorded and e-mailed to the account, and
 * for a merchant action to its owners (reporting-refusal.ts): callers say what they confirm with
 * a StepUpAttempt.
 */
import 'server-only';
import type { DbOrTx } from '@/lib/db/client';
import { AppError } from '@/lib/errors';
import { verifyPin } from './verify-pin';
import { reportingRefusal, type StepUpAttempt } from './reporting-refusal';
import { factorUsableFrom, formatUsableFrom, isCoolingDown, type StepUpMode } from './two-factor/factor-usable-from';
import { verifyPasskeyAssertion } from './two-factor/passkeys';

/** What a form sends: the PIN, or the JSON of a passkey assertion (from stepUpPasskeyOptionsAction). */
export interface StepUpProof {
  pin?: string;
  passkeyResponse?: string;
}

interface StepUpCheck {
  userId: string;
  proof: StepUpProof;
  mode: StepUpMode;
  tx?: DbOrTx;
  now?: Date;
}

/**
 * Throws unless the proof confirms the user: PIN errors as verifyPin (counted, locked, disabled),
 * a passkey that does not verify → step_up_failed, a live confirmation with a passkey still cooling
 * down → factor_cooling_down. With `tx` and a PIN, the PIN is held for the caller's transaction (see
 * verifyPin). A refusal is reported as `attempt` (e-mailed, throttled).
 */
export async function verifyStepUp(input: StepUpCheck & { attempt: StepUpAttempt }): Promise<void> {
  await reportingRefusal(input, () => checkStepUp(input));
}

/**
 * A PIN-only confirmation of the user's own money move (a wallet send, a balance payment, a swap of held
 * funds, approving a spending allowance): verifyPin, its refusals reported like every step-up's. A balance
 * payment within a spending allowance needs none (lib/allowances/, ADR 0034; the transfer gate checks it).
 */
export async function verifyPinStepUp(input: {
  userId: string;
  pin: string;
  attempt: StepUpAttempt;
  tx?: DbOrTx;
  now?: Date;
}): Promise<void> {
  await reportingRefusal(input, () => verifyPin(input));
}

/** verifyStepUp without the report, for a verifier that reports its refusals itself (factor-change-proof.ts). */
export async function checkStepUp(input: StepUpCheck): Promise<void> {
  if (input.proof.passkeyResponse) {
    const key = await verifyPasskeyAssertion({ userId: input.userId, ceremony: 'step_up', response: input.proof.passkeyResponse });
    if (!key)
      throw new AppError('step_up_failed', 'The passkey did not confirm it is you. Try again, or enter your PIN.', { param: 'pin' });
    if (isCoolingDown(key.addedAt, input.mode, input.now)) {
      throw new AppError(
        'factor_cooling_down',
        `This passkey is new: it confirms live payments and ownership changes from ${formatUsableFrom(factorUsableFrom(key.addedAt))}. Enter your PIN instead.`,
        { param: 'pin' },
      );
    }
    return;
  }
  if (!input.proof.pin)
    throw new AppError('step_up_required', 'Confirm with your PIN (or a passkey): this change needs more than a session.', {
      param: 'pin',
    });
  await verifyPin({ userId: input.userId, pin: input.proof.pin, tx: input.tx, now: input.now });
}
