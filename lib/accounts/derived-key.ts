/** Keys derived from AUTH_SECRET for separate purposes (HKDF), so one secret never serves two uses. */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { requireSecret } from '@/lib/env';

const cache = new Map<string, Buffer>();

export function derivedKey(purpose: 'verification-codes' | 'recovery-codes'): Buffer {
  const secret = requireSecret('AUTH_SECRET');
  const cacheKey = `${purpose}:${secret}`;
  let key = cache.get(cacheKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'chargeport', purpose, 32));
    cache.set(cacheKey, key);
  }
  return key;
}

export function hmacHex(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

export function equalHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
