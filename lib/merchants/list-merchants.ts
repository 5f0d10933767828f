import { asc, eq, isNull, sql } from 'drizzle-orm';
import { getDb } from '@/lib/db/client';
import { apiKeys, merchants } from '@/lib/db/schema';

export async function listMerchants(): Promise<
  { id: string; name: string; email: string; verified: boolean; activeKeys: number; createdAt: Date }[]
> {
  const rows = await getDb()
    .select({
      id: merchants.id,
      name: merchants.name,
      email: merchants.email,
      verifiedAt: merchants.verifiedAt,
      createdAt: merchants.createdAt,
      activeKeys: sql<number>`count(${apiKeys.id}) filter (where ${isNull(apiKeys.revokedAt)})`.mapWith(Number),
    })
    .from(merchants)
    .leftJoin(apiKeys, eq(apiKeys.merchantId, merchants.id))
    .groupBy(merchants.id)
    .orderBy(asc(merchants.createdAt));
  return rows.map(({ verifiedAt, ...rest }) => ({ ...rest, verified: verifiedAt !== null }));
}
