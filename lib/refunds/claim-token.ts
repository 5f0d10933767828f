/**
 * A refund claim link's token: random, shown once (the API's and the dashboard's answer to the refund
 * that made it, and the payer's e-mail), stored only as its sha256. It is a bearer secret: never in
 * webhooks, logs or audit rows.
 */
import { createHash } from 'node:crypto';
import { env } from '@/lib/env';
import { randomBase62 } from '@/lib/ids';

const TOKEN_PATTERN = /^[0-9A-Za-z]{32}$/;

export function newClaimToken(): { token: string; hash: string } {
  const token = randomBase62(32);
  return { token, hash: hashClaimToken(token) };
}

export function hashClaimToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function isClaimTokenShaped(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

export function claimUrlOf(token: string): string {
  return `${env().APP_URL.replace(/\/+$/, '')}/refunds/claim/${token}`;
}

export function claimExpiryFrom(now: Date): Date {
  return new Date(now.getTime() + env().REFUND_CLAIM_TTL_DAYS * 24 * 60 * 60 * 1000);
}
