/**
 * "End the other sessions": after a PIN change or reset, a phone change, an e-mail change or turning
 * on two-factor sign-in, every session of the account ends (the session version is bumped) and the
 * device that made the change gets a fresh session, so only it stays signed in. The account verbs
 * (lib/accounts/change-pin.ts, reset-pin-with-phone.ts, phone.ts, change-email.ts) bump the version
 * with their own write; their actions then only renew this session.
 */
import { revokeAllSessions } from '@/lib/accounts/revoke-sessions';
import { signIn } from './auth';
import { createSignInTicket } from './sign-in-ticket';

/** A fresh session for this device, carrying the current session version. */
export async function renewThisSession(userId: string): Promise<void> {
  // This session passed every factor the account had (it is signed in): so does its successor.
  await signIn('ticket', { ticket: createSignInTicket(userId, { secondFactorPassed: true }), redirect: false });
}

export async function endOtherSessions(userId: string): Promise<void> {
  await revokeAllSessions(userId);
  await renewThisSession(userId);
}
