/**
 * The API Keys tab's table: the keys of one mode that still work (or will until a roll's overlap
 * ends), oldest first. Every member may read it (`dashboard.view`); a listing never holds a secret
 * (only the display prefix: the plaintext is shown once, at creation or roll).
 */
import { and, asc, eq, gt, isNull, or } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { apiKeys, type ApiKey, type ApiKeyKind, type ApiKeyMode } from '@/lib/db/schema';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';

export interface ApiKeyListing {
  id: string;
  name: string;
  kind: ApiKeyKind;
  mode: ApiKeyMode;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  /** The dated API version the key's first request pinned it to (lib/api/resolve-api-version.ts); null before it. */
  apiVersion: string | null;
  /** Set for a revoked key, or in the future for a rolled key still in its overlap. */
  expiresAt: Date | null;
  /** Publishable keys: the browser origins (CORS) and the redirect origins of their charges. */
  allowedOrigins: string[];
  allowedRedirectOrigins: string[];
}

/** Keys of one mode that still work (or will until their overlap ends), oldest first. */
export async function listApiKeys(input: MemberActor & { mode: ApiKeyMode }, now = new Date()): Promise<ApiKeyListing[]> {
  await authorizeMember(getDb(), { ...input, permission: 'dashboard.view' });
  const rows = await getDb()
    .select()
    .from(apiKeys)
    .where(
      and(
        eq(apiKeys.merchantId, input.merchantId),
        eq(apiKeys.mode, input.mode),
        or(isNull(apiKeys.revokedAt), gt(apiKeys.revokedAt, now)),
      ),
    )
    .orderBy(asc(apiKeys.createdAt));
  return rows.map(toListing);
}

function toListing(row: ApiKey): ApiKeyListing {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    mode: row.mode,
    displayPrefix: row.displayPrefix,
    allowedOrigins: row.allowedOrigins,
    allowedRedirectOrigins: row.allowedRedirectOrigins,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    apiVersion: row.apiVersion,
    expiresAt: row.revokedAt,
  };
}
