/**
 * CSP hashes of the build's own stylesheets, for `style-src` (ADR 0031). Next.js inlines the CSS of a page
 * into its HTML (`experimental.inlineCss`) as a `<style>` that React writes without the request's nonce, so
 * the policy allows that exact text by its SHA-256 instead: only our built CSS, never an injected style.
 *
 * Read once per process from `<cwd>/.next/static` (`next start` runs in the project, the standalone
 * server in `.next/standalone`, where its static files are copied beside it). No build there (tests,
 * `next dev`): no hashes, and the page's styles fall back to the nonce and `'self'`.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

let cached: { root: string; hashes: readonly string[] } | undefined;

/** `'sha256-…'` of every `.css` file under `root` (default `<cwd>/.next/static`), sorted; cached per root. */
// turbopackIgnore: a build-output folder read at run time, not a file to trace into the standalone server.
export function builtStyleHashes(root = path.join(process.cwd(), '.next', 'static')): readonly string[] {
  if (cached?.root === root) return cached.hashes;
  let files: string[];
  try {
    files = readdirSync(/* turbopackIgnore: true */ root, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.css'));
  } catch {
    files = [];
  }
  const hashes = files
    .map((name) => {
      const file = root + path.sep + name;
      return `'sha256-${createHash('sha256').update(readFileSync(/* turbopackIgnore: true */ file)).digest('base64')}'`;
    })
    .sort();
  cached = { root, hashes: [...new Set(hashes)] };
  return cached.hashes;
}
