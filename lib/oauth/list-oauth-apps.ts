/**
 * The OAuth tab's table: the merchant's apps that are not revoked, oldest first, with how many users
 * granted each access. Every member may read it (`dashboard.view`); a listing never holds a secret,
 * only whether the app has one.
 */
import 'server-only';
import { and, asc, count, eq, isNull } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { oauthClients, oidcPayloads, type OAuthClientType } from '@/lib/db/schema';
import { authorizeMember, type MemberActor } from '@/lib/merchants/permissions';

export interface OAuthAppListing {
  clientId: string;
  name: string;
  logoUrl: string | null;
  redirectUris: string[];
  clientType: OAuthClientType;
  hasSecret: boolean;
  userCount: number;
  createdAt: Date;
}

export async function listOAuthApps(input: MemberActor): Promise<OAuthAppListing[]> {
  await authorizeMember(getDb(), { ...input, permission: 'dashboard.view' });
  const rows = await getDb()
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.merchantId, input.merchantId), isNull(oauthClients.revokedAt)))
    .orderBy(asc(oauthClients.createdAt));
  const counts = await getDb()
    .select({ clientId: oidcPayloads.clientId, users: count() })
    .from(oidcPayloads)
    .innerJoin(oauthClients, eq(oauthClients.id, oidcPayloads.clientId))
    .where(and(eq(oidcPayloads.model, 'Grant'), eq(oauthClients.merchantId, input.merchantId)))
    .groupBy(oidcPayloads.clientId);
  const usersOf = new Map(counts.map((row) => [row.clientId, row.users]));
  return rows.map((row) => ({
    clientId: row.id,
    name: row.name,
    logoUrl: row.logoUrl,
    redirectUris: row.redirectUris,
    clientType: row.clientType,
    hasSecret: row.sealedSecret !== null,
    userCount: usersOf.get(row.id) ?? 0,
    createdAt: row.createdAt,
  }));
}
