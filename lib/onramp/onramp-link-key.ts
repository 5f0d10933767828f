/**
 * The merchant's on-ramp link key (lib/onramp/link-signature.ts): 32 random bytes, shown once as 64
 * hex characters when created or rolled (rolling replaces it: links signed with the old key lose their
 * verified label), sealed at rest under the wallet master key and bound to the merchant (AAD), since
 * verifying a signature needs the key itself. Owners and admins manage it (profile.manage). Master-key
 * rotation re-seals it (lib/admin/sealed-columns.ts).
 */
import 'server-only';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchants } from '@/lib/db/schema';
import { isIdOf } from '@/lib/ids';
import { isOnrampLinkSignatureValid, type SignedLinkFields } from '@/lib/onramp/link-signature';
import { masterKeyById, masterKeyRing, open, seal } from '@/lib/keyring/master-keys';
import { authorizeMember } from '@/lib/merchants/permissions';

function aadFor(merchantId: string): Buffer {
  return Buffer.from(JSON.stringify(['chargeport.onramp-link-key.v1', merchantId]), 'utf8');
}

/** stored = "<masterKeyId>:" + base64(iv ‖ ciphertext ‖ tag), bound to the merchant. */
function sealLinkKey(merchantId: string, key: Buffer): string {
  const { current } = masterKeyRing();
  return `${current.id}:${seal(current.key, key, aadFor(merchantId))}`;
}

function openLinkKey(merchantId: string, stored: string): Buffer {
  const separator = stored.indexOf(':');
  const context = `The on-ramp link key of merchant ${merchantId}`;
  return open(masterKeyById(stored.slice(0, separator), context), stored.slice(separator + 1), aadFor(merchantId), context);
}

/** Master-key rotation (lib/admin/sealed-columns.ts): the stored key, opened and sealed under the current key. */
export function resealOnrampLinkKey(merchantId: string, stored: string): string {
  return sealLinkKey(merchantId, openLinkKey(merchantId, stored));
}

/** Creates or replaces the key; returns it once (hex). */
export async function rollOnrampLinkKey(input: { userId: string; merchantId: string }): Promise<{ key: string }> {
  return getDb().transaction(async (tx) => {
    await authorizeMember(tx, { userId: input.userId, merchantId: input.merchantId, permission: 'profile.manage' });
    const key = randomBytes(32);
    await tx
      .update(merchants)
      .set({ onrampLinkKey: sealLinkKey(input.merchantId, key), onrampLinkKeyCreatedAt: new Date() })
      .where(eq(merchants.id, input.merchantId));
    return { key: key.toString('hex') };
  });
}

/**
 * The merchant's name when `signature` is its valid signature of the link's fields; null otherwise
 * (no such merchant, no key, a wrong or tampered signature).
 */
export async function verifiedLinkMerchantName(fields: SignedLinkFields, signature: string): Promise<string | null> {
  if (!isIdOf('merchant', fields.merchantId)) return null;
  const [row] = await getDb()
    .select({ name: merchants.name, sealed: merchants.onrampLinkKey })
    .from(merchants)
    .where(eq(merchants.id, fields.merchantId));
  if (!row?.sealed) return null;
  const key = openLinkKey(fields.merchantId, row.sealed);
  return isOnrampLinkSignatureValid(key, fields, signature) ? row.name : null;
}
