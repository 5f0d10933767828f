/**
 * The OAuth tab's rules, the signing keys and the grants, against real PostgreSQL through the
 * provider's own endpoints (discovery, JWKS, token, introspection) where a client would see them.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { merchantMembers, oauthClients, oidcPayloads, oidcSigningKeys } from '@/lib/db/schema';
import { newUser } from '@/test/accounts';
import { newMerchant } from '@/test/fixtures';
import { handleOidcRequest } from './handle-oidc-request';
import { listAppUsers, listConnectedApps, revokeConnectedApp } from './grants';
import { listOAuthApps } from './list-oauth-apps';
import { registerOAuthApp } from './register-oauth-app';
import { revokeOAuthApp } from './revoke-oauth-app';
import { revokeOAuthAppSecret } from './revoke-oauth-app-secret';
import { rollOAuthAppSecret } from './roll-oauth-app-secret';
import { getProvider } from './provider';
import { rotateSigningKey } from './signing-keys';

let owner: { userId: string; merchantId: string };
let viewer: { userId: string; merchantId: string };

beforeAll(async () => {
  const merchant = await newMerchant({ name: 'Pixel Quest' });
  owner = { userId: await newUser(), merchantId: merchant.id };
  viewer = { userId: await newUser(), merchantId: merchant.id };
  await getDb()
    .insert(merchantMembers)
    .values([
      { merchantId: merchant.id, userId: owner.userId, role: 'owner' },
      { merchantId: merchant.id, userId: viewer.userId, role: 'viewer' },
    ]);
});

const oidc = (path: string, init?: RequestInit) => handleOidcRequest(new Request(`http://localhost:3999${path}`, init));

/** Client credentials at the introspection endpoint: 200 when the secret authenticates the app. */
async function authenticates(clientId: string, secret: string): Promise<boolean> {
  const res = await oidc('/oidc/token/introspection', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
    },
    body: 'token=nothing',
  });
  return res.status === 200;
}

async function grantFor(userId: string, clientId: string): Promise<{ grantId: string; token: string }> {
  const provider = await getProvider();
  const grant = new provider.Grant({ accountId: userId, clientId });
  grant.addOIDCScope('openid email payments');
  const grantId = await grant.save();
  const token = await new provider.AccessToken({
    accountId: userId,
    client: (await provider.Client.find(clientId))!,
    grantId,
    scope: 'openid email payments',
    gty: 'authorization_code',
  }).save();
  return { grantId, token };
}

describe('registering apps', () => {
  it('refuses bad input with the field at fault', async () => {
    const register = (app: Partial<Parameters<typeof registerOAuthApp>[0]['app']>) =>
      registerOAuthApp({ ...owner, app: { name: 'App', redirectUris: ['https://a.example/cb'], clientType: 'public', ...app } });
    await expect(register({ name: '  ' })).rejects.toMatchObject({ code: 'invalid_request', param: 'name' });
    await expect(register({ redirectUris: [] })).rejects.toMatchObject({ code: 'invalid_request', param: 'redirectUris' });
    await expect(register({ redirectUris: ['http://evil.example/cb'] })).rejects.toMatchObject({
      param: 'redirectUris.0',
      message: expect.stringContaining('https'),
    });
    await expect(register({ redirectUris: ['https://a.example/cb#frag'] })).rejects.toMatchObject({ param: 'redirectUris.0' });
    await expect(register({ redirectUris: ['javascript:alert(1)'] })).rejects.toMatchObject({ param: 'redirectUris.0' });
    await expect(register({ logoUrl: 'http://a.example/logo.png' })).rejects.toMatchObject({ param: 'logoUrl' });
    // Loopback http and an app scheme are fine.
    await expect(register({ redirectUris: ['http://localhost:8080/cb', 'com.pixelquest.game:/callback'] })).resolves.toMatchObject({
      clientId: expect.stringMatching(/^cpapp_/),
    });
    await expect(
      registerOAuthApp({ ...viewer, app: { name: 'Nope', redirectUris: ['https://a.example/cb'], clientType: 'public' } }),
    ).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('shows a confidential secret once, stores it sealed, rolls and revokes it', async () => {
    const { clientId, clientSecret } = await registerOAuthApp({
      ...owner,
      app: { name: 'Server app', redirectUris: ['https://a.example/cb'], clientType: 'confidential' },
    });
    expect(clientSecret).toMatch(/^cps_[0-9A-Za-z]{43}$/);
    const [row] = await getDb().select().from(oauthClients).where(eq(oauthClients.id, clientId));
    expect(row!.sealedSecret).not.toContain(clientSecret!);
    expect(await authenticates(clientId, clientSecret!)).toBe(true);
    expect(await authenticates(clientId, 'wrong')).toBe(false);

    const rolled = await rollOAuthAppSecret({ ...owner, clientId });
    expect(await authenticates(clientId, clientSecret!)).toBe(false);
    expect(await authenticates(clientId, rolled.clientSecret!)).toBe(true);

    await revokeOAuthAppSecret({ ...owner, clientId });
    expect(await authenticates(clientId, rolled.clientSecret!)).toBe(false);
    expect((await listOAuthApps(owner)).find((app) => app.clientId === clientId)?.hasSecret).toBe(false);
  });

  it('lists users, lets a user remove access, and revoking the app ends every token', async () => {
    const { clientId } = await registerOAuthApp({
      ...owner,
      app: { name: 'Game', redirectUris: ['https://a.example/cb'], clientType: 'public' },
    });
    const alice = await newUser();
    const bob = await newUser();
    const aliceGrant = await grantFor(alice, clientId);
    const bobGrant = await grantFor(bob, clientId);
    expect((await listAppUsers(clientId)).map((user) => user.userId).sort()).toEqual([alice, bob].sort());
    expect((await listConnectedApps(alice)).map((app) => [app.clientId, app.scopes])).toEqual([
      [clientId, ['openid', 'email', 'payments']],
    ]);
    expect((await listOAuthApps(owner)).find((app) => app.clientId === clientId)?.userCount).toBe(2);

    const provider = await getProvider();
    await revokeConnectedApp({ userId: alice, clientId });
    expect(await provider.AccessToken.find(aliceGrant.token)).toBeUndefined();
    expect(await listConnectedApps(alice)).toEqual([]);
    expect(await provider.AccessToken.find(bobGrant.token)).toBeDefined();
    await expect(revokeConnectedApp({ userId: alice, clientId })).rejects.toMatchObject({ code: 'not_found' });

    await expect(revokeOAuthApp({ ...viewer, clientId })).rejects.toMatchObject({ code: 'forbidden' });
    await revokeOAuthApp({ ...owner, clientId });
    expect(await provider.AccessToken.find(bobGrant.token)).toBeUndefined();
    expect(await provider.Client.find(clientId)).toBeUndefined();
    expect(await getDb().select().from(oidcPayloads).where(eq(oidcPayloads.clientId, clientId))).toEqual([]);
  });
});

describe('signing keys', () => {
  it('are sealed at rest, and a rotated key stays in the JWKS until its ID tokens expire', async () => {
    const jwks = async () => ((await (await oidc('/oidc/jwks')).json()) as { keys: { kid: string; d?: string }[] }).keys;
    const before = await jwks();
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((key) => key.d === undefined)).toBe(true);
    const stored = await getDb().select().from(oidcSigningKeys);
    expect(stored.every((key) => !JSON.stringify(key).includes('"d"'))).toBe(true);

    const now = new Date();
    const { kid, retired } = await rotateSigningKey(now);
    expect(retired.map((key) => key.kid)).toEqual(expect.arrayContaining([before[0]!.kid]));
    // Every instance picks the new set up within 30 s; this one is told now.
    (globalThis as { __chargeportOidc?: unknown }).__chargeportOidc = undefined;
    const after = await jwks();
    expect(after[0]!.kid).toBe(kid);
    expect(after.map((key) => key.kid)).toContain(before[0]!.kid);

    // Past publishedUntil the old key leaves.
    await getDb()
      .update(oidcSigningKeys)
      .set({ publishedUntil: new Date(now.getTime() - 1000) })
      .where(eq(oidcSigningKeys.id, before[0]!.kid));
    (globalThis as { __chargeportOidc?: unknown }).__chargeportOidc = undefined;
    expect((await jwks()).map((key) => key.kid)).not.toContain(before[0]!.kid);
  });

  it('discovery names the endpoints, PKCE S256 only and the device grant', async () => {
    const res = await oidc('/.well-known/openid-configuration');
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: 'http://localhost:3999',
      authorization_endpoint: 'http://localhost:3999/oidc/auth',
      token_endpoint: 'http://localhost:3999/oidc/token',
      device_authorization_endpoint: 'http://localhost:3999/oidc/device/auth',
      revocation_endpoint: 'http://localhost:3999/oidc/token/revocation',
      userinfo_endpoint: 'http://localhost:3999/oidc/me',
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
    expect(doc.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile', 'wallet:read', 'payments']));
    expect(doc.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code']),
    );
  });
});
