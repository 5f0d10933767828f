import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/lib/db/client';
import { webhookEndpoints } from '@/lib/db/schema';
import { resetEnvCache } from '@/lib/env';
import { callRoute, newMerchant, newPublishableKey, type TestMerchant } from '@/test/fixtures';
import { revealWebhookSecret } from '@/lib/webhooks/reveal-webhook-secret';
import { signingSecretsOf } from '@/lib/webhooks/secrets';
import { DELETE as deleteRoute, GET as getRoute, PATCH as patchRoute } from './[endpointId]/route';
import { POST as rotateRoute } from './[endpointId]/rotate-secret/route';
import { GET as listRoute, POST as createRoute } from './route';

const HOOK = 'https://game.example/webhooks/chargeport';
let merchant: TestMerchant;
beforeAll(async () => {
  merchant = await newMerchant();
});

async function create(apiKey: string, body: Record<string, unknown> = { url: HOOK }) {
  return callRoute(createRoute, { apiKey, body });
}

async function createdId(apiKey: string, body?: Record<string, unknown>): Promise<string> {
  const res = await create(apiKey, body);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.data.id;
}

describe('webhook endpoints: happy path', () => {
  it("creates an endpoint in the key's mode and returns its secret once", async () => {
    const res = await create(merchant.liveKey!, {
      url: HOOK,
      eventTypes: ['charge.succeeded', 'charge.failed'],
      description: 'Production receiver',
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      id: expect.stringMatching(/^we_/),
      object: 'webhook_endpoint',
      mode: 'live',
      url: HOOK,
      description: 'Production receiver',
      eventTypes: ['charge.succeeded', 'charge.failed'],
      enabled: true,
      status: 'active',
      failingSince: null,
      previousSecretExpiresAt: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { id, secret } = res.json.data;

    const got = await callRoute(getRoute, { apiKey: merchant.liveKey, params: { endpointId: id } });
    expect(got.status).toBe(200);
    expect(got.json.data).not.toHaveProperty('secret');
    const listed = await callRoute(listRoute, { apiKey: merchant.liveKey });
    expect(listed.json.data).toMatchObject({ object: 'list', has_more: false });
    expect(listed.json.data.data.map((e: any) => e.id)).toContain(id);
    expect(JSON.stringify(listed.json)).not.toContain(secret);

    // Sealed at rest, revealable for the dashboard.
    const [row] = await getDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(row!.signingSecret).not.toContain(secret.slice('whsec_'.length, 20));
    expect(row!.signingSecret).toMatch(/^mk_[0-9a-f]{16}:/);
    expect(await revealWebhookSecret({ owner: { merchantId: merchant.id, mode: 'live' }, endpointId: id })).toEqual({
      secret,
      previous: null,
    });
  });

  it('defaults to every event type ("*")', async () => {
    const res = await create(merchant.testKey, { url: 'http://localhost:4242/hooks' });
    expect(res.json.data).toMatchObject({ mode: 'test', eventTypes: ['*'], url: 'http://localhost:4242/hooks' });
  });

  it('updates url, event types, description and enabled; deletes', async () => {
    const id = await createdId(merchant.testKey, { url: 'http://127.0.0.1:4000/a' });
    const res = await callRoute(patchRoute, {
      method: 'PATCH',
      apiKey: merchant.testKey,
      params: { endpointId: id },
      body: { url: 'https://example.com/b', eventTypes: ['charge.expired', '*'], description: 'staging', enabled: false },
    });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ url: 'https://example.com/b', eventTypes: ['*'], description: 'staging', enabled: false });
    const cleared = await callRoute(patchRoute, {
      method: 'PATCH',
      apiKey: merchant.testKey,
      params: { endpointId: id },
      body: { description: null },
    });
    expect(cleared.json.data.description).toBeNull();

    const deleted = await callRoute(deleteRoute, { method: 'DELETE', apiKey: merchant.testKey, params: { endpointId: id } });
    expect(deleted.json.data).toEqual({ id, object: 'webhook_endpoint', deleted: true });
    expect((await callRoute(getRoute, { apiKey: merchant.testKey, params: { endpointId: id } })).status).toBe(404);
  });

  it('re-enabling an endpoint that a 410 disabled makes it active again', async () => {
    const id = await createdId(merchant.testKey);
    await getDb()
      .update(webhookEndpoints)
      .set({ enabled: false, status: 'disabled', disabledReason: 'The endpoint answered 410 Gone' })
      .where(eq(webhookEndpoints.id, id));
    const res = await callRoute(patchRoute, {
      method: 'PATCH',
      apiKey: merchant.testKey,
      params: { endpointId: id },
      body: { enabled: true },
    });
    expect(res.json.data).toMatchObject({ enabled: true, status: 'active', disabledReason: null });
  });

  it('rotates the secret; the old one keeps signing for the overlap (24 h by default, or none)', async () => {
    const created = await create(merchant.testKey);
    const { id, secret: first } = created.json.data;
    const before = Date.now();
    const rotated = await callRoute(rotateRoute, { apiKey: merchant.testKey, params: { endpointId: id }, method: 'POST' });
    expect(rotated.status).toBe(200);
    const second = rotated.json.data.secret;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    const expiresAt = Date.parse(rotated.json.data.previousSecretExpiresAt);
    expect(expiresAt - before).toBeGreaterThan(24 * 3_600_000 - 60_000);
    expect(expiresAt - before).toBeLessThan(24 * 3_600_000 + 60_000);
    const [row] = await getDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(signingSecretsOf(row!)).toEqual([second, first]);
    expect(signingSecretsOf(row!, new Date(expiresAt + 1))).toEqual([second]);

    const immediate = await callRoute(rotateRoute, { apiKey: merchant.testKey, params: { endpointId: id }, body: { overlapHours: 0 } });
    expect(immediate.json.data.previousSecretExpiresAt).toBeNull();
    const [after] = await getDb().select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
    expect(signingSecretsOf(after!)).toEqual([immediate.json.data.secret]);
  });
});

describe('webhook endpoints: errors', () => {
  it.each([
    [{}, 'url'],
    [{ url: HOOK, eventTypes: [] }, 'eventTypes'],
    [{ url: HOOK, eventTypes: ['charge.paid'] }, 'eventTypes.0'],
    [{ url: HOOK, secret: 'whsec_mine' }, 'secret'],
    [{ url: HOOK, description: 'x'.repeat(501) }, 'description'],
  ])('%j → 400 invalid_request (%s)', async (body, param) => {
    const res = await create(merchant.testKey, body);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_request', param });
  });

  it('PATCH needs at least one field, and rotate-secret refuses a bad overlap', async () => {
    const id = await createdId(merchant.testKey);
    const empty = await callRoute(patchRoute, { method: 'PATCH', apiKey: merchant.testKey, params: { endpointId: id }, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.json.error?.code).toBe('invalid_request');
    const overlap = await callRoute(rotateRoute, { apiKey: merchant.testKey, params: { endpointId: id }, body: { overlapHours: 1000 } });
    expect(overlap.json.error).toMatchObject({ code: 'invalid_request', param: 'overlapHours' });
  });

  it('allows at most 16 endpoints per merchant and mode', async () => {
    const own = await newMerchant();
    for (let i = 0; i < 16; i++) await createdId(own.testKey, { url: `https://example.com/${i}` });
    const res = await create(own.testKey);
    expect(res.status).toBe(409);
    expect(res.json.error?.code).toBe('webhook_endpoint_limit');
    expect((await create(own.liveKey!)).status).toBe(200);
  });
});

describe('webhook endpoints: security', () => {
  it.each([
    ['http://127.0.0.1/hook', 'https://'],
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://10.0.0.1/hook', 'private'],
    ['https://2130706433/hook', 'loopback'],
    ['https://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['https://[::1]/hook', 'loopback'],
    ['https://localhost/hook', 'localhost'],
    ['https://user:pass@example.com/hook', 'password'],
    ['ftp://example.com/hook', 'https://'],
    ['not a url', 'valid absolute URL'],
  ])('live: %s is refused with invalid_webhook_url', async (url, why) => {
    const res = await create(merchant.liveKey!, { url });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'invalid_webhook_url', param: 'url' });
    expect(res.json.error!.message).toContain(why);
  });

  it('test mode may use http and loopback, never private or metadata addresses', async () => {
    expect((await create(merchant.testKey, { url: 'http://127.0.0.1:8080/hook' })).status).toBe(200);
    expect((await create(merchant.testKey, { url: 'http://[::1]:8080/hook' })).status).toBe(200);
    for (const url of ['http://10.0.0.1/hook', 'http://169.254.169.254/', 'http://192.168.1.10/hook']) {
      expect((await create(merchant.testKey, { url })).json.error?.code, url).toBe('invalid_webhook_url');
    }
  });

  describe('with WEBHOOKS_ALLOW_LOOPBACK=false (a hosted deployment)', () => {
    afterEach(() => {
      delete process.env.WEBHOOKS_ALLOW_LOOPBACK;
      resetEnvCache();
    });

    it('test mode refuses loopback too', async () => {
      process.env.WEBHOOKS_ALLOW_LOOPBACK = 'false';
      resetEnvCache();
      for (const url of ['http://localhost:3000/hook', 'http://127.0.0.1:8080/hook', 'http://2130706433:8080/']) {
        const res = await create(merchant.testKey, { url });
        expect(res.json.error?.code, url).toBe('invalid_webhook_url');
      }
      expect((await create(merchant.testKey, { url: 'http://example.com/hook' })).status).toBe(200);
    });
  });

  it('a URL changed to a refused address is refused too', async () => {
    const id = await createdId(merchant.liveKey!);
    const res = await callRoute(patchRoute, {
      method: 'PATCH',
      apiKey: merchant.liveKey,
      params: { endpointId: id },
      body: { url: 'https://192.168.0.1/hook' },
    });
    expect(res.json.error).toMatchObject({ code: 'invalid_webhook_url', param: 'url' });
  });

  it('another merchant, or the other mode, gets 404 for an endpoint; lists are scoped to merchant and mode', async () => {
    const id = await createdId(merchant.testKey);
    const other = await newMerchant();
    const calls = (apiKey: string) => [
      callRoute(getRoute, { apiKey, params: { endpointId: id } }),
      callRoute(patchRoute, { method: 'PATCH', apiKey, params: { endpointId: id }, body: { enabled: false } }),
      callRoute(rotateRoute, { apiKey, params: { endpointId: id }, body: {} }),
      callRoute(deleteRoute, { method: 'DELETE', apiKey, params: { endpointId: id } }),
    ];
    for (const apiKey of [other.testKey, merchant.liveKey!]) {
      for (const res of await Promise.all(calls(apiKey))) {
        expect(res.status).toBe(404);
        expect(res.json.error?.code).toBe('not_found');
      }
    }
    const otherList = await callRoute(listRoute, { apiKey: other.testKey });
    expect(otherList.json.data.data).toEqual([]);
    const liveList = await callRoute(listRoute, { apiKey: merchant.liveKey });
    expect(liveList.json.data.data.every((e: any) => e.mode === 'live')).toBe(true);
    // Untouched by all of the above.
    expect((await callRoute(getRoute, { apiKey: merchant.testKey, params: { endpointId: id } })).json.data).toMatchObject({
      enabled: true,
    });
  });

  it('publishable keys and missing keys are refused', async () => {
    const publishable = await newPublishableKey(merchant.id);
    const res = await create(publishable);
    expect(res.status).toBe(403);
    expect(res.json.error?.code).toBe('key_not_permitted');
    expect((await callRoute(listRoute, {})).status).toBe(401);
  });
});
