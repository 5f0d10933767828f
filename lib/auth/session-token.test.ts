import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { createUser } from '@/lib/accounts/create-user';
import { uniqueEmail } from '@/test/accounts';
import { SESSION_ABSOLUTE_SECONDS, checkSessionClaims, issueSessionClaims } from './session-token';
import { revokeAllSessions } from '@/lib/accounts/revoke-sessions';
import { createSignInTicket, readSignInTicket } from './sign-in-ticket';

async function newUserId(): Promise<string> {
  const email = uniqueEmail('session');
  const user = await getDb().transaction((tx) => createUser(tx, { email, emailVerified: true, method: 'email', subject: email }));
  return user.id;
}

describe('session tokens', () => {
  it('are accepted within the absolute lifetime and refused after it', async () => {
    const userId = await newUserId();
    const now = Date.now();
    const claims = (await issueSessionClaims(userId, {}, now))!;
    expect(await checkSessionClaims(claims, now + 60_000)).toEqual(claims);
    expect(await checkSessionClaims(claims, now + (SESSION_ABSOLUTE_SECONDS + 1) * 1000)).toBeNull();
  });

  it('"sign out everywhere" refuses every token issued before it; a new sign-in works', async () => {
    const userId = await newUserId();
    const before = (await issueSessionClaims(userId))!;
    await revokeAllSessions(userId);
    expect(await checkSessionClaims(before)).toBeNull();
    const after = (await issueSessionClaims(userId))!;
    expect(await checkSessionClaims(after)).toEqual(after);
  });

  it('a token of a deleted or unknown account is refused', async () => {
    expect(await checkSessionClaims({ sub: 'usr_unknown', sv: 0, authAt: Math.floor(Date.now() / 1000) })).toBeNull();
  });
});

describe('sign-in tickets', () => {
  it('carry the user id for 30 s, signed; a tampered or late ticket is refused', () => {
    const now = Date.now();
    const ticket = createSignInTicket('usr_abc', {}, now);
    expect(readSignInTicket(ticket, now + 1000)).toEqual({ userId: 'usr_abc', secondFactorPassed: false });
    expect(readSignInTicket(ticket, now + 31_000)).toBeUndefined();
    expect(readSignInTicket(ticket.replace('usr_abc', 'usr_xyz'), now)).toBeUndefined();
    expect(readSignInTicket('garbage', now)).toBeUndefined();
  });
});
