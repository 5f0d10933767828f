/**
 * Issue 26 point 5 (N7): every sealed secret rotates. In a private database (rotation walks whole
 * tables): one row of every kind is sealed under key 1; the schema scan finds each sealed column in the
 * registry; rotation to key 2 re-seals them all; with key 1 removed, each still opens where it is used.
 */
import { randomBytes } from 'node:crypto';
import { eq, getTableColumns, getTableName, is, sql } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyTotpCode } from '@/lib/accounts/two-factor/totp';
import { getDb } from '@/lib/db/client';
import * as schema from '@/lib/db/schema';
import { merchantMembers, merchants, oauthClients, onrampAccessTokens, users, wallets, webhookEndpoints } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { newId, randomBase62 } from '@/lib/ids';
import { rollOnrampLinkKey, verifiedLinkMerchantName } from '@/lib/onramp/onramp-link-key';
import { clientMetadataOf } from '@/lib/oauth/client-metadata';
import { sealClientSecret } from '@/lib/oauth/client-secret';
import { loadSigningKeys } from '@/lib/oauth/signing-keys';
import { signOnrampLink } from '@/lib/onramp/link-signature';
import { createWalletsForUser } from '@/lib/keyring/create-wallets';
import { openWalletKey } from '@/lib/keyring/envelope';
import { masterKeyIdOf, open, seal } from '@/lib/keyring/master-keys';
import { sealWebhookSecret, signingSecretsOf } from '@/lib/webhooks/secrets';
import { enrolTotp, newUser } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { switchToPrivateDatabase } from '@/test/private-database';
import { rotateMasterKey, valuesOnOldKeys } from './rotate-master-key';
import { SEALED_TABLES } from './sealed-columns';

const key1 = randomBytes(32);
const key2 = randomBytes(32);
const saved = { current: process.env.WALLET_MASTER_KEY, previous: process.env.WALLET_MASTER_KEYS_PREVIOUS };
/** As lib/onramp/providers/transak-adapter-from-env.ts seals its token (it has no public sealing function). */
const TOKEN_AAD = Buffer.from('onramp-access-token:transak');

function useMasterKeys(current: Buffer, previous: Buffer[] = []): void {
  process.env.WALLET_MASTER_KEY = current.toString('base64');
  process.env.WALLET_MASTER_KEYS_PREVIOUS = previous.map((key) => key.toString('base64')).join(',');
  resetEnvCache();
}

/** One row of every kind, sealed under the current key, and what each should open to. */
async function seedOneOfEach() {
  const userId = newId('user');
  await getDb().transaction(async (tx) => {
    await tx.insert(users).values({ id: userId, email: `${userId.toLowerCase()}@example.test`, signUpMethod: 'email' });
    await createWalletsForUser(tx, userId);
  });
  const walletRows = await getDb().select().from(wallets).where(eq(wallets.userId, userId));
  const walletKeys = new Map(walletRows.map((row) => [row.id, openWalletKey(row)]));

  const merchantId = (await newMerchant()).id;
  const owner = await newUser();
  await getDb().insert(merchantMembers).values({ merchantId, userId: owner, role: 'owner' });
  const totp = await enrolTotp(owner);
  const linkKey = Buffer.from((await rollOnrampLinkKey({ userId: owner, merchantId })).key, 'hex');

  const endpointId = newId('webhookEndpoint');
  await getDb()
    .insert(webhookEndpoints)
    .values({
      id: endpointId,
      merchantId,
      mode: 'test',
      url: 'https://shop.example/webhooks',
      eventTypes: ['*'],
      signingSecret: sealWebhookSecret(endpointId, 'whsec_current'),
      previousSigningSecret: sealWebhookSecret(endpointId, 'whsec_previous'),
      previousSecretExpiresAt: new Date(Date.now() + 3_600_000),
    });

  const currentKey = Buffer.from(process.env.WALLET_MASTER_KEY!, 'base64');
  await getDb()
    .insert(onrampAccessTokens)
    .values({
      providerId: 'transak',
      sealedToken: seal(currentKey, Buffer.from('token-now'), TOKEN_AAD),
      masterKeyId: masterKeyIdOf(currentKey),
      expiresAt: new Date(Date.now() + 86_400_000 * 7),
      previousSealedToken: seal(currentKey, Buffer.from('token-before'), TOKEN_AAD),
      previousMasterKeyId: masterKeyIdOf(currentKey),
      previousValidUntil: new Date(Date.now() + 600_000),
    });

  const signing = await loadSigningKeys(); // creates the first key

  const clientId = `cpapp_${randomBase62(22)}`;
  const clientSecret = `cps_${randomBase62(43)}`;
  await getDb()
    .insert(oauthClients)
    .values({
      id: clientId,
      merchantId,
      name: 'Rotation test app',
      redirectUris: ['https://game.example/callback'],
      clientType: 'confidential',
      sealedSecret: sealClientSecret(clientId, clientSecret),
      secretCreatedAt: new Date(),
    });
  return { userId, walletKeys, merchantId, owner, totp, linkKey, endpointId, signing, clientId, clientSecret };
}

type Seeded = Awaited<ReturnType<typeof seedOneOfEach>>;

/** Every table of lib/db/schema. */
function schemaTables(): PgTable[] {
  return (Object.values(schema) as unknown[]).filter((value): value is PgTable => is(value, PgTable));
}

/** Every registered column, as "table.column", by role. */
function registered() {
  const values = new Set<string>();
  const keyIds = new Set<string>();
  const inner = new Set<string>();
  for (const table of SEALED_TABLES) {
    const name = getTableName(table.table);
    for (const column of table.columns) {
      values.add(`${name}.${column.value.name}`);
      if (column.keyId !== 'prefix') keyIds.add(`${name}.${column.keyId.name}`);
    }
    for (const column of table.inner) inner.add(`${name}.${column.name}`);
  }
  return { values, keyIds, inner };
}

/** Every column of every table of lib/db/schema whose stored text names a master key: "<id>" alone, or "<id>:…". */
async function columnsNamingAMasterKey(): Promise<{ prefixed: Set<string>; keyIds: Set<string> }> {
  const prefixed = new Set<string>();
  const keyIds = new Set<string>();
  for (const table of schemaTables()) {
    for (const column of Object.values(getTableColumns(table))) {
      const rows = await getDb().execute<{ v: string }>(
        sql`select distinct (${column})::text as v from ${table} where (${column})::text ~ 'mk_[0-9a-f]{16}' limit 20`,
      );
      const name = `${getTableName(table)}.${column.name}`;
      for (const { v } of rows) {
        if (/^mk_[0-9a-f]{16}$/.test(v)) keyIds.add(name);
        else if (/mk_[0-9a-f]{16}:[A-Za-z0-9+/]{20,}={0,2}/.test(v)) prefixed.add(name);
      }
    }
  }
  return { prefixed, keyIds };
}

describe('the registry of sealed columns (N7)', { timeout: 120_000 }, () => {
  let seeded: Seeded;
  beforeAll(async () => {
    await switchToPrivateDatabase('keyring');
    useMasterKeys(key1);
    seeded = await seedOneOfEach();
  });
  afterAll(() => {
    process.env.WALLET_MASTER_KEY = saved.current;
    process.env.WALLET_MASTER_KEYS_PREVIOUS = saved.previous;
    resetEnvCache();
  });

  it('lists every column of the schema that holds a sealed value, and the seed has a value in each', async () => {
    const found = await columnsNamingAMasterKey();
    const { values, keyIds, inner } = registered();
    // A value that names its key ("<id>:<sealed>") is a sealed column; a column holding only an id names the key of one.
    for (const name of found.prefixed) expect(values, `${name} holds sealed values: add it to lib/admin/sealed-columns.ts`).toContain(name);
    for (const name of found.keyIds) expect(keyIds, `${name} names master keys: register the column it keys`).toContain(name);
    // By name too: a column called sealed…/…secret is sealed unless the registry says how.
    for (const table of schemaTables()) {
      for (const column of Object.values(getTableColumns(table))) {
        if (column.dataType !== 'string' || !/sealed|secret/.test(column.name)) continue;
        const name = `${getTableName(table)}.${column.name}`;
        expect(values.has(name) || inner.has(name), `${name} looks sealed: add it to lib/admin/sealed-columns.ts`).toBe(true);
      }
    }
    // The seed has exercised every registered column (so the scan above saw each kind).
    const counts = await valuesOnOldKeys(masterKeyIdOf(key2));
    expect(new Set(counts.map((c) => c.column))).toEqual(values);
    expect(new Set(counts.map((c) => c.masterKeyId))).toEqual(new Set([masterKeyIdOf(key1)]));
  });

  it('rotation re-seals one row of every kind; with the old key removed each still opens where it is used', async () => {
    useMasterKeys(key2, [key1]);
    const first = await rotateMasterKey({ batchSize: 2 });
    expect(first.failed).toEqual([]);
    expect(first.onOldKeys).toEqual([]);
    expect(Object.keys(first.resealedByKind).sort()).toEqual(SEALED_TABLES.map((t) => t.kind).sort());
    // Idempotent: nothing is left to do.
    const second = await rotateMasterKey();
    expect(second.resealed).toBe(0);

    useMasterKeys(key2); // key 1 removed
    const walletRows = await getDb().select().from(wallets).where(eq(wallets.userId, seeded.userId));
    for (const row of walletRows) expect(openWalletKey(row).equals(seeded.walletKeys.get(row.id)!)).toBe(true);

    const [endpoint] = await getDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, seeded.endpointId));
    expect(signingSecretsOf(endpoint!)).toEqual(['whsec_current', 'whsec_previous']);

    const [token] = await getDb().select().from(onrampAccessTokens).where(eq(onrampAccessTokens.providerId, 'transak'));
    expect(token!.masterKeyId).toBe(masterKeyIdOf(key2));
    expect(open(key2, token!.sealedToken, TOKEN_AAD, 'token').toString()).toBe('token-now');
    expect(open(key2, token!.previousSealedToken!, TOKEN_AAD, 'token').toString()).toBe('token-before');

    const signing = await loadSigningKeys();
    expect(signing.keys.map((k) => [k.kid, k.d])).toEqual(seeded.signing.keys.map((k) => [k.kid, k.d]));

    // The second sign-in step still works: a code of the next time step (the enrolment used this one).
    const code = await generate({ secret: seeded.totp.secret, epoch: Math.floor(Date.now() / 1000) + 30 });
    expect(await verifyTotpCode({ userId: seeded.owner, code })).toBe(true);

    const [client] = await getDb().select().from(oauthClients).where(eq(oauthClients.id, seeded.clientId));
    expect(clientMetadataOf(client!).client_secret).toBe(seeded.clientSecret);

    const fields = { merchantId: seeded.merchantId, wallet: '0x1111111111111111111111111111111111111111', walletLabel: 'Acme' };
    const [merchant] = await getDb().select().from(merchants).where(eq(merchants.id, seeded.merchantId));
    expect(await verifiedLinkMerchantName(fields, signOnrampLink(seeded.linkKey, fields))).toBe(merchant!.name);
  });

  it('is not done while a value names a key it cannot open: the failure and the count name the column and key', async () => {
    const stranger = randomBytes(32);
    useMasterKeys(stranger);
    const userId = await newUser();
    await enrolTotp(userId); // sealed under a key that will not be configured
    useMasterKeys(key2);
    try {
      const result = await rotateMasterKey();
      expect(result.failed).toEqual([
        expect.objectContaining({
          kind: 'authenticator (TOTP) secret',
          table: 'users',
          id: userId,
          reason: expect.stringContaining(masterKeyIdOf(stranger)),
        }),
      ]);
      expect(result.onOldKeys).toEqual([{ column: 'users.totp_secret', masterKeyId: masterKeyIdOf(stranger), count: 1 }]);
      // With that key in the ring, the next run finishes.
      useMasterKeys(key2, [stranger]);
      expect((await rotateMasterKey()).onOldKeys).toEqual([]);
    } finally {
      useMasterKeys(key2);
    }
  });
});
