/**
 * A sign-in ticket hands a user id from our own verification (e-mail code, SIWE, a second factor)
 * to next-auth's credentials provider within one server request, with whether the second factor was
 * passed. It is HMAC-signed with a key derived from AUTH_SECRET and valid 30 s; it never leaves the server.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { requireSecret } from '@/lib/env';

const TTL_MS = 30_000;

function key(): Buffer {
  return Buffer.from(hkdfSync('sha256', requireSecret('AUTH_SECRET'), 'chargeport', 'sign-in-ticket', 32));
}

export function createSignInTicket(userId: string, options: { secondFactorPassed?: boolean } = {}, now = Date.now()): string {
  const payload = `${userId}.${options.secondFactorPassed ? '2' : '1'}.${now + TTL_MS}`;
  return `${payload}.${createHmac('sha256', key()).update(payload).digest('base64url')}`;
}

export function readSignInTicket(ticket: string, now = Date.now()): { userId: string; secondFactorPassed: boolean } | undefined {
  const parts = ticket.split('.');
  if (parts.length !== 4) return undefined;
  const [userId, factors, expires, signature] = parts as [string, string, string, string];
  const expected = createHmac('sha256', key()).update(`${userId}.${factors}.${expires}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  if (Number(expires) < now) return undefined;
  return { userId, secondFactorPassed: factors === '2' };
}
