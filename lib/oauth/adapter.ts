/**
 * oidc-provider's storage on PostgreSQL (its Adapter interface: upsert, find, findByUid,
 * findByUserCode, consume, destroy, revokeByGrantId), one row per model instance in `oidc_payloads`.
 *
 * Clients are the exception: the `Client` model reads the apps merchants registered on the OAuth tab
 * (`oauth_clients`), so a revoked app is unknown to the provider the moment it is revoked.
 */
import 'server-only';
import { and, eq, gt, isNull, lte, or, sql } from 'drizzle-orm';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { getDb } from '@/lib/db/client';
import { oauthClients, oidcPayloads } from '@/lib/db/schema';
import { clientMetadataOf } from './client-metadata';

const notExpired = () => or(isNull(oidcPayloads.expiresAt), gt(oidcPayloads.expiresAt, sql`now()`));

export class PostgresAdapter implements Adapter {
  constructor(private readonly model: string) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const row = {
      model: this.model,
      id,
      payload: payload as Record<string, unknown>,
      grantId: payload.grantId ?? null,
      userCode: payload.userCode ?? null,
      uid: payload.uid ?? null,
      accountId: payload.accountId ?? null,
      clientId: payload.clientId ?? null,
      expiresAt: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
    };
    await getDb()
      .insert(oidcPayloads)
      .values(row)
      .onConflictDoUpdate({ target: [oidcPayloads.model, oidcPayloads.id], set: { ...row, consumedAt: null } });
  }

  async find(id: string): Promise<AdapterPayload | undefined> {
    if (this.model === 'Client') return findClient(id);
    return this.findWhere(eq(oidcPayloads.id, id));
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findWhere(eq(oidcPayloads.userCode, userCode));
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findWhere(eq(oidcPayloads.uid, uid));
  }

  async consume(id: string): Promise<void> {
    await getDb()
      .update(oidcPayloads)
      .set({ consumedAt: new Date() })
      .where(and(eq(oidcPayloads.model, this.model), eq(oidcPayloads.id, id)));
  }

  async destroy(id: string): Promise<void> {
    await getDb()
      .delete(oidcPayloads)
      .where(and(eq(oidcPayloads.model, this.model), eq(oidcPayloads.id, id)));
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await revokeGrant(grantId);
  }

  private async findWhere(condition: ReturnType<typeof eq>): Promise<AdapterPayload | undefined> {
    const [row] = await getDb()
      .select({ payload: oidcPayloads.payload, consumedAt: oidcPayloads.consumedAt })
      .from(oidcPayloads)
      .where(and(eq(oidcPayloads.model, this.model), condition, notExpired()));
    if (!row) return undefined;
    const payload = row.payload as AdapterPayload;
    // oidc-provider reads `consumed` to refuse a second use of a code (and to revoke its tokens).
    return row.consumedAt ? { ...payload, consumed: Math.floor(row.consumedAt.getTime() / 1000) } : payload;
  }
}

/** Deletes a grant and every token, code and device code issued under it. */
async function revokeGrant(grantId: string): Promise<void> {
  await getDb()
    .delete(oidcPayloads)
    .where(or(eq(oidcPayloads.grantId, grantId), and(eq(oidcPayloads.model, 'Grant'), eq(oidcPayloads.id, grantId))));
}

async function findClient(id: string): Promise<AdapterPayload | undefined> {
  const [client] = await getDb()
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.id, id), isNull(oauthClients.revokedAt)));
  return client ? (clientMetadataOf(client) as AdapterPayload) : undefined;
}

/** Removes what expired more than a day ago (the provider never reads it again). */
export async function sweepExpiredOidcPayloads(now = new Date()): Promise<number> {
  const removed = await getDb()
    .delete(oidcPayloads)
    .where(lte(oidcPayloads.expiresAt, new Date(now.getTime() - 86_400_000)))
    .returning({ id: oidcPayloads.id });
  return removed.length;
}
