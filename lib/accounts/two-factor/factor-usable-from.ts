/**
 * Cooling of new second factors (issue 26, docs/adr/0027-second-factors.md): a passkey or an
 * authenticator app added less than FACTOR_COOLING_HOURS (24 h) ago signs in, but does not yet confirm
 * live money moves or ownership changes — neither as a step-up (a passkey in verifyStepUp) nor as the
 * "two-factor sign-in turned on" that verified merchants' owners need (requireSecondFactor). Someone
 * who added one with a stolen session gains nothing for a day, and the account's address has been
 * told. Test mode never waits, so integrators are not slowed.
 */
import { env } from '@/lib/env';

/** What a step-up confirms: live (real money, ownership, keys that control real funds) or test-mode changes. */
export type StepUpMode = 'live' | 'test';

/** When a factor added at `addedAt` starts to count for live money moves and ownership changes. */
export function factorUsableFrom(addedAt: Date): Date {
  return new Date(addedAt.getTime() + env().FACTOR_COOLING_HOURS * 3_600_000);
}

export function isCoolingDown(addedAt: Date, mode: StepUpMode, now: Date = new Date()): boolean {
  return mode === 'live' && factorUsableFrom(addedAt) > now;
}

/** The time in a message: minutes, UTC (the page shows it in the reader's time zone). */
export function formatUsableFrom(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
