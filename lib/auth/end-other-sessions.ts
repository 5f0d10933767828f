/**
 * "End the other sessions": after a PIN change or reset, a phone change, an e-mail change or turning
 * on two-factor sign-in, every session of the account ends (the session version is bumped) and the
 * device that made the change gets a fresh session, so only it stays signed in.
 */
import { revokeAllSessions } from '@/lib/accounts/revoke-sessions';
import { signIn } from './auth';
import { createSignInTicket } from './sign-in-ticket';

export async function endOtherSessions(userId: string): Promise<void> {
  await revokeAllSessions(userId);
  // This session passed every factor the account had (it is signed in): so does its successor.
  await signIn('ticket', { ticket: createSignInTicket(userId, { secondFactorPassed: true }), redirect: false });
}
