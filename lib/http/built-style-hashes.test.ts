import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { builtStyleHashes } from './built-style-hashes';
import { pageContentSecurityPolicy } from './security-headers.mjs';

const root = mkdtempSync(path.join(tmpdir(), 'built-style-hashes-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('builtStyleHashes', () => {
  it("hashes every .css file under the build's static folder, nested ones too, as a browser hashes a <style>'s text", () => {
    const css = '@layer base{body{margin:0}}.text-sm{font-size:.875rem}\n';
    mkdirSync(path.join(root, 'chunks', 'nested'), { recursive: true });
    writeFileSync(path.join(root, 'chunks', 'a.css'), css);
    writeFileSync(path.join(root, 'chunks', 'nested', 'b.css'), 'p{color:red}');
    writeFileSync(path.join(root, 'chunks', 'c.js'), 'console.log(1)');
    const expected = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
    expect(builtStyleHashes(root)).toEqual([expected(css), expected('p{color:red}')].sort());
  });

  it('no build (tests, next dev): no hashes', () => {
    expect(builtStyleHashes(path.join(root, 'missing'))).toEqual([]);
  });
});

describe('pageContentSecurityPolicy style-src', () => {
  const hashes = ["'sha256-AAAA'", "'sha256-BBBB'"];
  const styleSrc = (policy: string) => policy.split('; ').find((directive) => directive.startsWith('style-src '));

  it("allows the nonce and the build's style hashes, not any inline style", () => {
    const policy = pageContentSecurityPolicy({ nonce: 'n0nce', isDevelopment: false, upgradeInsecureRequests: false, styleHashes: hashes });
    expect(styleSrc(policy)).toBe("style-src 'self' 'nonce-n0nce' 'sha256-AAAA' 'sha256-BBBB'");
  });

  it("leaves the hashes out beside 'unsafe-inline' (a hash would switch it off): WalletConnect's modal, next dev", () => {
    for (const options of [{ walletConnect: true, isDevelopment: false }, { isDevelopment: true }]) {
      const policy = pageContentSecurityPolicy({ nonce: 'n0nce', upgradeInsecureRequests: false, styleHashes: hashes, ...options });
      expect(styleSrc(policy)).toBe("style-src 'self' 'unsafe-inline'");
    }
  });
});
