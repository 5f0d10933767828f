// GET /docs/api/redoc.standalone.js — Redoc's browser bundle from node_modules (pinned in package.json): no CDN.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

let bundle: Promise<Buffer> | undefined;

export async function GET(): Promise<Response> {
  bundle ??= readFile(path.join(process.cwd(), 'node_modules', 'redoc', 'bundles', 'redoc.standalone.js'));
  return new Response(new Uint8Array(await bundle), {
    headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=3600' },
  });
}
