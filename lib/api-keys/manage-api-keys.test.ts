import { and, eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { auditLog, merchantMembers, type MemberRole } from '@/lib/db/schema';
import { enrolTotp, newUser } from '@/test/accounts';

const PIN = '739104';
import { newMerchant, type TestMerchant } from '@/test/fixtures';
import { verifyMerchant } from '@/lib/merchants/verify-merchant';
import { authenticateApiKey } from './authenticate-api-key';
import { listApiKeys } from './list-api-keys';
import { createKeyForMember } from './create-key-for-member';
import { revokeKeyForMember } from './revoke-key-for-member';
import { rollKeyForMember } from './roll-key-for-member';

let merchant: TestMerchant;
const members: Partial<Record<MemberRole, string>> = {};

beforeEach(async () => {
  merchant = await newMerchant({ verified: false });
  for (const role of ['owner', 'admin', 'developer', 'viewer'] as const) {
    members[role] = await newUser({ pin: PIN });
    await getDb().insert(merchantMembers).values({ merchantId: merchant.id, userId: members[role]!, role });
  }
});

const as = (role: MemberRole) => ({ userId: members[role]!, merchantId: merchant.id, ip: '203.0.113.7' });

describe('API keys in the dashboard', () => {
  it('owners, admins and developers create keys; a viewer is refused on the server and nothing is stored', async () => {
    for (const role of ['owner', 'admin', 'developer'] as const) {
      const created = await createKeyForMember({ ...as(role), mode: 'test', kind: 'secret', name: `${role} key` });
      expect((await authenticateApiKey(created.plaintext)).apiKey.id).toBe(created.id);
    }
    const before = await listApiKeys({ ...as('viewer'), mode: 'test' });
    await expect(createKeyForMember({ ...as('viewer'), mode: 'test', kind: 'secret', name: 'nope' })).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect(await listApiKeys({ ...as('viewer'), mode: 'test' })).toHaveLength(before.length);
    const outsider = await newUser();
    await expect(listApiKeys({ userId: outsider, merchantId: merchant.id, mode: 'test' })).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('lists only the selected mode, and production keys need business verification', async () => {
    expect((await listApiKeys({ ...as('owner'), mode: 'test' })).every((k) => k.mode === 'test')).toBe(true);
    expect(await listApiKeys({ ...as('owner'), mode: 'live' })).toEqual([]);
    await expect(createKeyForMember({ ...as('owner'), mode: 'live', kind: 'secret', name: 'Prod' })).rejects.toMatchObject({
      code: 'verification_required',
    });
    await expect(createKeyForMember({ ...as('owner'), mode: 'test', kind: 'secret', name: '  ' })).rejects.toMatchObject({
      code: 'invalid_request',
      param: 'name',
    });
  });

  it('roll: the new key works at once, the old one until the overlap ends', async () => {
    const old = await createKeyForMember({ ...as('developer'), mode: 'test', kind: 'secret', name: 'Game server' });
    const now = new Date();
    const next = await rollKeyForMember({ ...as('developer'), keyId: old.id, overlapHours: 1 }, now);
    expect((await authenticateApiKey(next.plaintext)).apiKey.name).toBe('Game server');
    expect((await authenticateApiKey(old.plaintext)).apiKey.id).toBe(old.id);
    const listed = await listApiKeys({ ...as('viewer'), mode: 'test' });
    expect(listed.find((k) => k.id === old.id)?.expiresAt?.getTime()).toBe(now.getTime() + 3_600_000);
    await expect(rollKeyForMember({ ...as('developer'), keyId: old.id, overlapHours: 1 })).rejects.toMatchObject({
      code: 'invalid_request',
    });

    const immediate = await rollKeyForMember({ ...as('owner'), keyId: next.id, overlapHours: 0 });
    await expect(authenticateApiKey(next.plaintext)).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect((await authenticateApiKey(immediate.plaintext)).apiKey.kind).toBe('secret');
  });

  it('revoke stops a key at once, but the only test secret key cannot be revoked (roll it instead)', async () => {
    const keys = await listApiKeys({ ...as('owner'), mode: 'test' });
    const only = keys.filter((k) => k.kind === 'secret');
    expect(only).toHaveLength(1);
    await expect(revokeKeyForMember({ ...as('owner'), keyId: only[0]!.id })).rejects.toMatchObject({ code: 'invalid_request' });
    const extra = await createKeyForMember({ ...as('admin'), mode: 'test', kind: 'secret', name: 'CI' });
    await revokeKeyForMember({ ...as('admin'), keyId: extra.id });
    await expect(authenticateApiKey(extra.plaintext)).rejects.toMatchObject({ code: 'invalid_api_key' });
    await expect(revokeKeyForMember({ ...as('viewer'), keyId: only[0]!.id })).rejects.toMatchObject({ code: 'forbidden' });
    // Another merchant's key is not found, whatever the role.
    const other = await newMerchant();
    const [otherKey] = await listApiKeys({ userId: members.owner!, merchantId: merchant.id, mode: 'test' });
    await expect(revokeKeyForMember({ userId: members.owner!, merchantId: other.id, keyId: otherKey!.id })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it('a production key is revoked only with its name or "revoke" typed; nothing changes without it', async () => {
    await verifyMerchant(merchant.id);
    await enrolTotp(members.owner!);
    const live = await createKeyForMember({ ...as('owner'), mode: 'live', kind: 'secret', name: 'Prod server', stepUp: { pin: PIN } });
    for (const confirmation of [undefined, '', 'Prod', 'yes']) {
      await expect(revokeKeyForMember({ ...as('owner'), keyId: live.id, confirmation })).rejects.toMatchObject({
        code: 'invalid_request',
        param: 'confirm',
        message: expect.stringContaining('“Prod server”'),
      });
    }
    expect((await authenticateApiKey(live.plaintext)).apiKey.id).toBe(live.id);
    await revokeKeyForMember({ ...as('owner'), keyId: live.id, confirmation: ' Prod server ' });
    await expect(authenticateApiKey(live.plaintext)).rejects.toMatchObject({ code: 'invalid_api_key' });
    const another = await createKeyForMember({ ...as('owner'), mode: 'live', kind: 'publishable', name: 'Web', stepUp: { pin: PIN } });
    await revokeKeyForMember({ ...as('owner'), keyId: another.id, confirmation: 'REVOKE' });
    await expect(authenticateApiKey(another.plaintext)).rejects.toMatchObject({ code: 'invalid_api_key' });
  });

  it('records every change in the audit log, with actor, role, mode and IP, and never the key', async () => {
    const created = await createKeyForMember({ ...as('developer'), mode: 'test', kind: 'publishable', name: 'Web shop' });
    await rollKeyForMember({ ...as('developer'), keyId: created.id, overlapHours: 24 });
    const entries = await getDb()
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.merchantId, merchant.id), eq(auditLog.targetId, created.id)));
    expect(entries.map((e) => e.action).sort()).toEqual(['api_key.create', 'api_key.roll']);
    for (const entry of entries) {
      expect(entry).toMatchObject({ actorUserId: members.developer, actorRole: 'developer', mode: 'test', ip: '203.0.113.7' });
      expect(JSON.stringify(entry.data)).not.toContain(created.plaintext);
    }
  });
});
