/**
 * /docs/api: Redoc served from this app (no CDN) rendering /api/openapi.json, under a nonce policy that
 * allows no inline script or style without this response's nonce; the document gives it curl and Node
 * samples for every operation and a payload for every webhook event.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@/lib/api/openapi';
import { WEBHOOK_EVENT_TYPES } from '@/lib/webhooks/event-types';
import { copyPublicAssets } from '@/scripts/public-assets.mjs';
import { GET } from './route';

const page = () => GET(new Request('http://localhost:3999/docs/api'));

describe('GET /docs/api', () => {
  it('is an HTML page loading Redoc from this app, every script carrying the fresh nonce of its policy (inline styles allowed, inline scripts never)', async () => {
    const [first, second] = [await page(), await page()];
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = first.headers.get('content-security-policy')!;
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(/'nonce-([^']+)'/.exec(second.headers.get('content-security-policy')!)?.[1]).not.toBe(nonce);
    expect(policy).toMatch(/script-src 'self' 'nonce-[^']+'( 'strict-dynamic')?(;|$)/);
    expect(/script-src[^;]*/.exec(policy)![0]).not.toContain('unsafe-inline');
    expect(/style-src[^;]*/.exec(policy)![0]).toBe("style-src 'self' 'unsafe-inline'");
    expect(policy).toContain("frame-ancestors 'none'");
    const html = await first.text();
    // Nothing from another origin: the bundle and the document are this app's.
    expect(html).not.toMatch(/https?:\/\//);
    const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(2);
    for (const attributes of scripts) expect(attributes).toContain(`nonce="${nonce}"`);
    expect(scripts[0]).toContain('src="/docs/api/redoc.standalone.js"');
    expect(html).toContain("Redoc.init('/api/openapi.json'");
    // Redoc puts the nonce on the styles it injects.
    expect(html).toContain(`"nonce":"${nonce}"`);
  });

  it('the pinned Redoc bundle is copied into public/ (at build and dev start), and again only when it changed', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'public-assets-'));
    try {
      mkdirSync(path.join(root, 'node_modules'));
      symlinkSync(path.resolve('node_modules/redoc'), path.join(root, 'node_modules/redoc'));
      expect(copyPublicAssets(root)).toEqual(['public/docs/api/redoc.standalone.js']);
      const text = readFileSync(path.join(root, 'public/docs/api/redoc.standalone.js'), 'utf8');
      expect(text.length).toBeGreaterThan(500_000);
      expect(text).toContain('Redoc');
      expect(copyPublicAssets(root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('the document it renders has curl and Node samples on every operation and a payload per webhook event', () => {
    const doc = buildOpenApiDocument('http://localhost:3999') as unknown as {
      paths: Record<string, Record<string, { operationId: string; 'x-codeSamples'?: { label: string; source: string }[] }>>;
      webhooks: Record<string, unknown>;
    };
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    expect(operations.length).toBeGreaterThan(10);
    for (const operation of operations) {
      const labels = (operation['x-codeSamples'] ?? []).map((sample) => sample.label);
      expect(labels, operation.operationId).toEqual(expect.arrayContaining(['curl', 'Node SDK']));
    }
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
  });
});
