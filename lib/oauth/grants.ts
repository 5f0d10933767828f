/**
 * Grants: what an account consented to for an app (oidc-provider's Grant model in `oidc_payloads`).
 * One per account and app (provider.ts reuses it), listed as the user's "Connected apps" and as the
 * app's users on the merchant's OAuth tab. Revoking deletes the grant with every token issued under it.
 * Ending every session of the account (users.session_version) deletes them all, by a trigger (N14).
 */
import 'server-only';
import { and, desc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { merchants, oauthClients, oidcPayloads, users } from '@/lib/db/schema';
import { AppError } from '@/lib/errors';
import { knownScopes, type OAuthScope } from './scopes';

const activeGrant = () => and(eq(oidcPayloads.model, 'Grant'), or(isNull(oidcPayloads.expiresAt), gt(oidcPayloads.expiresAt, sql`now()`)));

/** The newest live grant of this account for this app. */
export async function findGrantIdOf(input: { accountId: string; clientId: string }): Promise<string | undefined> {
  const [row] = await getDb()
    .select({ id: oidcPayloads.id })
    .from(oidcPayloads)
    .where(and(activeGrant(), eq(oidcPayloads.clientId, input.clientId), eq(oidcPayloads.accountId, input.accountId)))
    .orderBy(desc(oidcPayloads.createdAt))
    .limit(1);
  return row?.id;
}

function scopesOf(payload: Record<string, unknown>): OAuthScope[] {
  const openid = (payload.openid as { scope?: string } | undefined)?.scope;
  return knownScopes(openid);
}

export interface ConnectedApp {
  clientId: string;
  name: string;
  logoUrl: string | null;
  merchantName: string;
  scopes: OAuthScope[];
  connectedAt: Date;
  /** When the app last got a token (signed in or refreshed); null when none is kept any more. */
  lastUsedAt: Date | null;
}

/** The apps this user signed in to, newest first (one line per app). */
export async function listConnectedApps(userId: string): Promise<ConnectedApp[]> {
  const rows = await getDb()
    .select({
      clientId: oauthClients.id,
      name: oauthClients.name,
      logoUrl: oauthClients.logoUrl,
      merchantName: merchants.name,
      payload: oidcPayloads.payload,
      createdAt: oidcPayloads.createdAt,
      // Tokens are issued at sign-in and at every refresh (rotation): the newest one is the last use we know of.
      lastUsedAt: sql<Date | string | null>`(select max(t.created_at) from ${oidcPayloads} t
        where t.grant_id = ${oidcPayloads.id} and t.model in ('AccessToken', 'RefreshToken'))`,
    })
    .from(oidcPayloads)
    .innerJoin(oauthClients, eq(oauthClients.id, oidcPayloads.clientId))
    .innerJoin(merchants, eq(merchants.id, oauthClients.merchantId))
    .where(and(activeGrant(), eq(oidcPayloads.accountId, userId), isNull(oauthClients.revokedAt)))
    .orderBy(desc(oidcPayloads.createdAt));
  const byClient = new Map<string, ConnectedApp>();
  for (const row of rows) {
    const known = byClient.get(row.clientId);
    const scopes = scopesOf(row.payload);
    const lastUsedAt = row.lastUsedAt === null ? null : new Date(row.lastUsedAt);
    if (known) {
      known.scopes = [...new Set([...known.scopes, ...scopes])];
      if (lastUsedAt && (!known.lastUsedAt || lastUsedAt > known.lastUsedAt)) known.lastUsedAt = lastUsedAt;
    } else
      byClient.set(row.clientId, {
        clientId: row.clientId,
        name: row.name,
        logoUrl: row.logoUrl,
        merchantName: row.merchantName,
        scopes,
        connectedAt: row.createdAt,
        lastUsedAt,
      });
  }
  return [...byClient.values()];
}

/** The user takes back an app's access: its grants, tokens and codes for this account are deleted. */
export async function revokeConnectedApp(input: { userId: string; clientId: string }): Promise<void> {
  const removed = await revokeGrantsWhere(and(eq(oidcPayloads.clientId, input.clientId), eq(oidcPayloads.accountId, input.userId)));
  if (removed === 0) throw new AppError('not_found', 'This app is not connected to your account.', { param: 'clientId' });
}

/**
 * "Revoke all": every app loses its access to this account at once — grants, access and refresh
 * tokens, codes, and the provider's sessions of the account. Returns how many apps were connected.
 */
export async function revokeAllConnectedApps(input: { userId: string }): Promise<number> {
  const apps = await listConnectedApps(input.userId);
  await getDb().transaction(async (tx) => {
    const grants = await tx
      .delete(oidcPayloads)
      .where(and(eq(oidcPayloads.model, 'Grant'), eq(oidcPayloads.accountId, input.userId)))
      .returning({ id: oidcPayloads.id });
    await tx.delete(oidcPayloads).where(
      or(
        eq(oidcPayloads.accountId, input.userId),
        grants.length
          ? inArray(
              oidcPayloads.grantId,
              grants.map((grant) => grant.id),
            )
          : undefined,
      ),
    );
  });
  return apps.length;
}

/** Every grant matching `where` (Grant rows), with every token issued under them. Returns how many grants. */
export async function revokeGrantsWhere(where: ReturnType<typeof and>): Promise<number> {
  return getDb().transaction(async (tx) => {
    const grants = await tx
      .delete(oidcPayloads)
      .where(and(eq(oidcPayloads.model, 'Grant'), where))
      .returning({ id: oidcPayloads.id });
    if (grants.length) {
      await tx.delete(oidcPayloads).where(
        inArray(
          oidcPayloads.grantId,
          grants.map((grant) => grant.id),
        ),
      );
    }
    return grants.length;
  });
}

export interface AppUser {
  userId: string;
  email: string | null;
  scopes: OAuthScope[];
  connectedAt: Date;
}

/** Who signed in to one app (for the OAuth tab), newest first; the caller checks the app is the merchant's. */
export async function listAppUsers(clientId: string, limit = 100): Promise<AppUser[]> {
  const rows = await getDb()
    .select({ userId: users.id, email: users.email, payload: oidcPayloads.payload, createdAt: oidcPayloads.createdAt })
    .from(oidcPayloads)
    .innerJoin(users, eq(users.id, oidcPayloads.accountId))
    .where(and(activeGrant(), eq(oidcPayloads.clientId, clientId)))
    .orderBy(desc(oidcPayloads.createdAt))
    .limit(limit);
  const byUser = new Map<string, AppUser>();
  for (const row of rows) {
    if (!byUser.has(row.userId))
      byUser.set(row.userId, { userId: row.userId, email: row.email, scopes: scopesOf(row.payload), connectedAt: row.createdAt });
  }
  return [...byUser.values()];
}
