/**
 * API key format: `cp_test_…` / `cp_live_…` (secret) and `cp_pub_test_…` / `cp_pub_live_…`
 * (publishable), then 32 base62 characters (~190 bits). Keys are random and long, so a plain SHA-256
 * is the right stored form (no salt or slow hash needed: nothing to brute-force), and lookups by
 * hash stay one index probe per request.
 */
import 'server-only';
import { createHash } from 'node:crypto';
import type { ApiKeyKind, ApiKeyMode } from '@/lib/db/schema';
import { randomBase62 } from '@/lib/ids';

function apiKeyPrefix(mode: ApiKeyMode, kind: ApiKeyKind): string {
  return kind === 'publishable' ? `cp_pub_${mode}_` : `cp_${mode}_`;
}

export function generateApiKey(mode: ApiKeyMode, kind: ApiKeyKind): { plaintext: string; hash: string; displayPrefix: string } {
  const prefix = apiKeyPrefix(mode, kind);
  const plaintext = `${prefix}${randomBase62(32)}`;
  return { plaintext, hash: hashApiKey(plaintext), displayPrefix: plaintext.slice(0, prefix.length + 4) };
}

export function hashApiKey(plaintext: string): string {
  return createHash('sha256').update(plaintext, 'utf8').digest('hex');
}

export const API_KEY_PATTERN = /^cp_(pub_)?(test|live)_[0-9A-Za-z]{32}$/;
