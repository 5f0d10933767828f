import { describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { auditLog, merchantMembers, type MemberRole } from '@/lib/db/schema';
import { newId } from '@/lib/ids';
import { newUser } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { readAuditLog } from './read-audit-log';

async function memberOf(merchantId: string, role: MemberRole): Promise<string> {
  const userId = await newUser();
  await getDb().insert(merchantMembers).values({ merchantId, userId, role });
  return userId;
}

async function audit(merchantId: string, actorUserId: string, action: string, createdAt: Date): Promise<void> {
  await getDb()
    .insert(auditLog)
    .values({ id: newId('auditEntry'), merchantId, actorUserId, actorRole: 'owner', action, data: {}, createdAt });
}

describe('readAuditLog', () => {
  it('gives an owner their merchant’s entries newest first, 50 a page, and refuses every other role and outsiders', async () => {
    const merchantId = (await newMerchant()).id;
    const owner = await memberOf(merchantId, 'owner');
    const start = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 55; i++) await audit(merchantId, owner, `action.${i}`, new Date(start + i * 1000));
    const other = (await newMerchant()).id;
    await audit(other, await memberOf(other, 'owner'), 'elsewhere', new Date(start + 99_000));

    const firstPage = await readAuditLog({ userId: owner, merchantId });
    expect(firstPage).toHaveLength(50);
    expect(firstPage[0]!.action).toBe('action.54');
    const secondPage = await readAuditLog({ userId: owner, merchantId, before: firstPage.at(-1)! });
    expect(secondPage.map((entry) => entry.action)).toEqual(['action.4', 'action.3', 'action.2', 'action.1', 'action.0']);

    for (const role of ['admin', 'developer', 'viewer'] as const) {
      await expect(readAuditLog({ userId: await memberOf(merchantId, role), merchantId })).rejects.toMatchObject({ code: 'forbidden' });
    }
    await expect(readAuditLog({ userId: await newUser(), merchantId })).rejects.toMatchObject({ code: 'forbidden' });
  });
});
