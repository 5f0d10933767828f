/**
 * Static files that come from a dependency and are served from public/ as they are: Redoc's browser bundle
 * for the API reference (/docs/api). They are copied at build and dev start (next.config.mjs calls this), so
 * the version served is the one pinned in package.json, no CDN is involved and no route reads node_modules.
 * The copies are not committed (.gitignore).
 */
import { copyFileSync, mkdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

export const PUBLIC_ASSETS = [{ from: 'node_modules/redoc/bundles/redoc.standalone.js', to: 'public/docs/api/redoc.standalone.js' }];

/** Copies each asset whose copy is missing or differs; returns the paths it wrote. */
export function copyPublicAssets(root = process.cwd()) {
  const written = [];
  for (const asset of PUBLIC_ASSETS) {
    const from = path.join(root, asset.from);
    const to = path.join(root, asset.to);
    const source = readFileSync(from);
    if (existsSync(to) && readFileSync(to).equals(source)) continue;
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(from, to);
    written.push(asset.to);
  }
  return written;
}
